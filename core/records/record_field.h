// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cmath>
#include <cstdint>

namespace accumlab {

/// One number or flag of a record type R (StepRecord, ProbeRecord, …) under its one name: the
/// column of R's store table, its key in JSON, its value in a checkpoint and its tag in a
/// TensorBoard log. Exactly one of `real`, `integer` and `flag` is set. A record's fields are
/// listed once, in its table (records/record_fields.h), and every writer and reader of the
/// record walks that table.
template <typename R>
struct RecordField {
  const char* name;
  double R::*real = nullptr;
  int64_t R::*integer = nullptr;
  bool R::*flag = nullptr;
  int since = 1;                  ///< the store schema version that added the column
  bool negative_is_null = false;  ///< an integer below zero is "not measured" (JSON null)

  /// The value as a double (NaN stays NaN; a flag is 0 or 1).
  double get(const R& r) const {
    if (real) return r.*real;
    if (flag) return r.*flag ? 1.0 : 0.0;
    return static_cast<double>(r.*integer);
  }
  /// Sets the value from a double: integers are rounded, and NaN gives an integer its
  /// default (0, or -1 for "not measured") and a flag false.
  void set(R& r, double v) const {
    if (real) {
      r.*real = v;
    } else if (flag) {
      r.*flag = std::isfinite(v) && v != 0.0;
    } else {
      r.*integer = std::isfinite(v) ? std::llround(v) : R{}.*integer;
    }
  }
  /// Whether the value is there: not NaN, and not a negative "not measured" integer.
  bool measured(const R& r) const {
    if (real) return !std::isnan(r.*real);
    return !(integer && negative_is_null && r.*integer < 0);
  }
  /// The column's SQL type.
  const char* sqlType() const { return real ? "REAL" : "INTEGER"; }
};

/// A real field `name` of R, stored since schema version `since`.
template <typename R>
RecordField<R> realField(const char* name, double R::*member, int since = 1) {
  return {name, member, nullptr, nullptr, since};
}
/// An integer field; `negative_is_null`: below zero means "not measured".
template <typename R>
RecordField<R> integerField(const char* name, int64_t R::*member, int since = 1,
                            bool negative_is_null = false) {
  return {name, nullptr, member, nullptr, since, negative_is_null};
}
/// A flag (stored 0 or 1, NOT NULL DEFAULT 0).
template <typename R>
RecordField<R> flagField(const char* name, bool R::*member, int since = 1) {
  return {name, nullptr, nullptr, member, since};
}

}  // namespace accumlab
