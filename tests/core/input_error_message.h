// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <string>

#include "accumlab/input_error.h"

namespace accumlab::testing {

/// The sentence of the InputError that `f` throws, or "(no InputError)".
inline std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

}  // namespace accumlab::testing
