// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace accumlab::cli {

/// What the shell offers for an option's value (`accumlab-cli completion bash`, docs/cli.md).
struct ValueHint {
  /// The choices; one that ends in ':' takes more after it (pitfall:, csv:).
  std::vector<std::string> words;
  bool comma_list = false;  ///< the value is a comma-separated list of the words (--arms)
};

/// Gives `option`'s value the choices `hint` and returns `option`; a null option (one a
/// command skipped) is left alone. Call it where the option is registered, with the names the
/// option's parser accepts, so that the completion follows the option table.
CLI::Option* completeWith(CLI::Option* option, ValueHint hint);
/// The choices given to `option`, or null when it has none.
const ValueHint* valueHint(const CLI::Option* option);

/// Every name that core's toString gives the values of the enum E, counted from 0 up to the
/// first it does not know ("?"): the names its parser accepts. For the enums of
/// accumlab/experiment_config.h, whose toString answers "?" for a value it does not name.
template <typename E>
std::vector<std::string> enumNames() {
  std::vector<std::string> names;
  for (int i = 0;; ++i) {
    std::string name = toString(static_cast<E>(i));
    if (name == "?") return names;
    names.push_back(std::move(name));
  }
}

}  // namespace accumlab::cli
