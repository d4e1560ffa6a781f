// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "accumlab/input_error.h"

namespace accumlab {

/// Parses JSON text; throws InputError naming `source` (e.g. "config file x.json") with the
/// byte of a syntax error, or for a number beyond a double's range (nlohmann's 406, valid
/// JSON it cannot hold, like 1e400).
inline nlohmann::json parseJsonText(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source + " is not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::out_of_range&) {
    throw InputError(source + " holds a number too large for a double (above 1.8e308)");
  }
}

}  // namespace accumlab
