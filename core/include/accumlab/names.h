// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "accumlab/input_error.h"

namespace accumlab {

/// The names of the values of an enum E, the one way AccumLab writes an enum as text and reads
/// it back (configs, the store, JSON, the command line). Immutable after construction, so one
/// table may be read from any thread.
template <typename E>
class Names {
 public:
  using Entry = std::pair<E, const char*>;

  /// `what` names the setting in errors ("window policy"); `entries` in the order listed.
  Names(const char* what, std::initializer_list<Entry> entries) : what_(what), entries_(entries) {}

  /// The name of `value`, or "?" for a value without one.
  std::string name(E value) const {
    for (const auto& [v, n] : entries_) {
      if (v == value) return n;
    }
    return "?";
  }
  /// The value named `text`, or none.
  std::optional<E> find(const std::string& text) const {
    for (const auto& [v, n] : entries_) {
      if (text == n) return v;
    }
    return std::nullopt;
  }
  /// The value named `text`; throws InputError "window policy 'x' is not known: use one of
  /// stream, flush-exact, …" otherwise.
  E parse(const std::string& text) const {
    if (auto v = find(text)) return *v;
    throw InputError(std::string(what_) + " '" + text + "' is not known: use one of " + list());
  }
  /// Every name, comma-separated, in table order.
  std::string list() const {
    std::string all;
    for (const auto& [v, n] : entries_) all += (all.empty() ? "" : ", ") + std::string(n);
    return all;
  }
  /// What the values are ("window policy").
  const char* what() const { return what_; }
  /// The table, in order.
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  const char* what_;
  std::vector<Entry> entries_;
};

/// The name table of enum E, defined beside the enum's other functions (one per enum).
template <typename E>
const Names<E>& namesOf();

/// The name of an enum value that has a name table: toString(WindowPolicy::kDrop) == "drop".
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
std::string toString(E value) {
  return namesOf<E>().name(value);
}

}  // namespace accumlab
