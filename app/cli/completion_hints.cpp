// SPDX-License-Identifier: GPL-3.0-or-later
#include "completion_hints.h"

#include <map>
#include <utility>

namespace accumlab::cli {

namespace {

/// The hints of every option, by option. Written while the commands register their options
/// on the main thread, read after by the completion command: no lock.
std::map<const CLI::Option*, ValueHint>& hints() {
  static std::map<const CLI::Option*, ValueHint> map;
  return map;
}

}  // namespace

CLI::Option* completeWith(CLI::Option* option, ValueHint hint) {
  if (option) hints()[option] = std::move(hint);
  return option;
}

const ValueHint* valueHint(const CLI::Option* option) {
  const auto it = hints().find(option);
  return it == hints().end() ? nullptr : &it->second;
}

}  // namespace accumlab::cli
