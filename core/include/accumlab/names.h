// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "accumlab/input_error.h"

namespace accumlab {

/// The names of the values of an enum E whose values are 0, 1, 2, …: the one way AccumLab
/// writes an enum as text and reads it back (configs, the store, JSON, the command line).
/// A constant, so that one table may be read from any thread at any time.
template <typename E>
class Names {
 public:
  /// `what` names the values in errors ("window policy"); `names` their names in the enum's
  /// order, one space between two.
  constexpr Names(const char* what, const char* names) : what_(what), names_(names) {}

  /// The name of `value`, or "?" for a value without one.
  std::string name(E value) const {
    std::string found = "?";
    forEach([&](size_t i, std::string n) {
      if (i == static_cast<size_t>(value)) found = std::move(n);
    });
    return found;
  }
  /// The value named `text`, or none.
  std::optional<E> find(const std::string& text) const {
    std::optional<E> found;
    forEach([&](size_t i, const std::string& n) {
      if (!found && n == text) found = static_cast<E>(i);
    });
    return found;
  }
  /// The value named `text`; throws InputError "window policy 'x' is not known: use one of
  /// stream, flush-exact, …" otherwise.
  E parse(const std::string& text) const {
    if (auto v = find(text)) return *v;
    throw InputError(std::string(what_) + " '" + text + "' is not known: use one of " + list());
  }
  /// Every name, comma-separated, in the enum's order.
  std::string list() const {
    std::string all;
    forEach([&](size_t i, const std::string& n) { all += (i == 0 ? "" : ", ") + n; });
    return all;
  }
  /// Every value with its name, in the enum's order.
  std::vector<std::pair<E, std::string>> entries() const {
    std::vector<std::pair<E, std::string>> all;
    forEach([&](size_t i, std::string n) { all.emplace_back(static_cast<E>(i), std::move(n)); });
    return all;
  }
  /// What the values are ("window policy").
  const char* what() const { return what_; }

 private:
  /// Calls f(i, name of value i) for each name.
  template <typename F>
  void forEach(F f) const {
    size_t i = 0;
    for (const char* p = names_; *p;) {
      const char* end = p;
      while (*end && *end != ' ') ++end;
      f(i++, std::string(p, end));
      p = *end ? end + 1 : end;
    }
  }

  const char* what_;
  const char* names_;
};

/// The name table of enum E, defined right after E (one explicit specialization per enum).
template <typename E>
extern const Names<E> kNames;

/// The name of an enum value that has a name table: toString(WindowPolicy::kDrop) == "drop".
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
std::string toString(E value) {
  return kNames<E>.name(value);
}

}  // namespace accumlab
