// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdexcept>
#include <string>

namespace accumlab {

/// Bad input from the user (a file, an option, a config): the message is one sentence that
/// names what is wrong and how to fix it. The CLI exits with code 2, the GUI shows a dialog.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace accumlab
