// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Statement.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "accumlab/names.h"

namespace accumlab::store {

/// The columns of a result row read into the fields of a row type (RunRow, SweepRow, …), and a
/// statement's parameters bound from them, each by the field's type: one rule for every
/// table's text, numbers, flags, enums and NULLs. A record's metric columns are read and bound
/// by its field table instead (field_rows.h).

/// Text; NULL reads as empty.
inline void readColumn(const SQLite::Column& c, std::string& out) { out = c.getString(); }
/// An integer; NULL reads as 0.
inline void readColumn(const SQLite::Column& c, int64_t& out) { out = c.getInt64(); }
/// A real; NULL reads as NaN (SQLite has no NaN: a NaN is stored as NULL).
inline void readColumn(const SQLite::Column& c, double& out) {
  out = c.isNull() ? std::nan("") : c.getDouble();
}
/// A flag, stored 0 or 1; NULL reads as false.
inline void readColumn(const SQLite::Column& c, bool& out) { out = c.getInt64() != 0; }
/// An enum stored as its name (kNames<E>); a name this build does not know throws InputError.
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
void readColumn(const SQLite::Column& c, E& out) {
  out = kNames<E>.parse(c.getString());
}

/// A value that may be missing; NULL reads as none.
template <typename T>
void readColumn(const SQLite::Column& c, std::optional<T>& out) {
  out.reset();
  if (c.isNull()) return;
  readColumn(c, out.emplace());
}

/// Reads the columns of the statement's current row from `first` on into `out…`, in order;
/// returns the next column.
template <typename... T>
int readColumns(SQLite::Statement& q, int first, T&... out) {
  (readColumn(q.getColumn(first++), out), ...);
  return first;
}

/// Binds parameter `i` to `value` as readColumn() reads it back: text, a number, a flag as 0 or
/// 1, an enum as its name, none as NULL.
template <typename T>
void bindColumn(SQLite::Statement& q, int i, const T& value) {
  if constexpr (std::is_enum_v<T>) {
    q.bind(i, toString(value));
  } else if constexpr (std::is_same_v<T, bool>) {
    q.bind(i, value ? 1 : 0);
  } else {
    q.bind(i, value);
  }
}
template <typename T>
void bindColumn(SQLite::Statement& q, int i, const std::optional<T>& value) {
  if (value) {
    bindColumn(q, i, *value);
  } else {
    q.bind(i);
  }
}

/// Binds the statement's parameters from `first` on to `values…`, in order; returns the next.
template <typename... T>
int bindColumns(SQLite::Statement& q, int first, const T&... values) {
  (bindColumn(q, first++, values), ...);
  return first;
}

/// Binds the statement's parameters from 1 on to `values…`, runs it and resets it for its next
/// use; returns the number of rows it changed.
template <typename... T>
int execWith(SQLite::Statement& q, const T&... values) {
  bindColumns(q, 1, values...);
  const int changed = q.exec();
  q.reset();
  return changed;
}

}  // namespace accumlab::store
