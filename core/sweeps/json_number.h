// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

namespace accumlab {

/// `j[key]` as a number, or `fallback` where it is missing or not a number (stored JSON of a
/// sweep or its spec, which older versions or hand edits may lack).
inline double numberOr(const nlohmann::json& j, const char* key, double fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace accumlab
