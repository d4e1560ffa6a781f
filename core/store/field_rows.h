// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <sqlite3.h>

#include <cmath>
#include <string>
#include <vector>

#include "records/record_field.h"

namespace accumlab::store {

/// A record's fields as columns of its store table: the SQL of its inserts and selects, its
/// binding and reading, and the migration that adds the columns of a schema version. NaN
/// binds as NULL (SQLite has no NaN) and NULL reads back as NaN; a NULL integer (a column
/// newer than the row) keeps the field's default, e.g. -1 for "not measured".

/// The fields' names, comma-separated.
template <typename R>
std::string fieldColumns(const std::vector<RecordField<R>>& fields) {
  std::string cols;
  for (const auto& f : fields) cols += (cols.empty() ? "" : ", ") + std::string(f.name);
  return cols;
}

/// "INSERT INTO table (run_id, <fields>, <extra>) VALUES (?, …)"; `verb` may be "INSERT OR
/// REPLACE". The run id binds first, then the fields (bindFields), then `extra` in order.
template <typename R>
std::string insertFieldsSql(const char* verb, const char* table,
                            const std::vector<RecordField<R>>& fields,
                            const std::vector<const char*>& extra = {}) {
  std::string cols = "run_id, " + fieldColumns(fields), marks = "?";
  for (size_t i = 0; i < fields.size(); ++i) marks += ", ?";
  for (const char* e : extra) {
    cols += std::string(", ") + e;
    marks += ", ?";
  }
  return std::string(verb) + " INTO " + table + " (" + cols + ") VALUES (" + marks + ")";
}

/// Binds the fields of `r` from parameter `i` on; returns the next parameter.
template <typename R>
int bindFields(SQLite::Statement& q, int i, const R& r, const std::vector<RecordField<R>>& fields) {
  for (const auto& f : fields) {
    if (f.real) {
      q.bind(i++, r.*f.real);
    } else if (f.flag) {
      q.bind(i++, r.*f.flag ? 1 : 0);
    } else {
      q.bind(i++, static_cast<int64_t>(r.*f.integer));
    }
  }
  return i;
}

/// Reads the fields of `r` from result column `i` on (SQLite's own statement, for the loops
/// that read many rows); returns the next column.
template <typename R>
int readFields(sqlite3_stmt* q, int i, R& r, const std::vector<RecordField<R>>& fields) {
  for (const auto& f : fields) {
    const bool null = sqlite3_column_type(q, i) == SQLITE_NULL;
    if (f.real) {
      r.*f.real = null ? std::nan("") : sqlite3_column_double(q, i);
    } else if (f.flag) {
      r.*f.flag = sqlite3_column_int64(q, i) != 0;
    } else if (!null) {
      r.*f.integer = sqlite3_column_int64(q, i);
    }
    ++i;
  }
  return i;
}

/// Reads the fields of `r` from column `i` on of a SQLiteCpp statement; returns the next.
template <typename R>
int readFields(SQLite::Statement& q, int i, R& r, const std::vector<RecordField<R>>& fields) {
  for (const auto& f : fields) {
    const SQLite::Column c = q.getColumn(i++);
    if (f.real) {
      r.*f.real = c.isNull() ? std::nan("") : c.getDouble();
    } else if (f.flag) {
      r.*f.flag = c.getInt64() != 0;
    } else if (!c.isNull()) {
      r.*f.integer = c.getInt64();
    }
  }
  return i;
}

/// Adds to `table` the columns of the fields that schema version `version` added (old rows
/// read them as NULL: NaN, the integer's default, or false for flags).
template <typename R>
void addFieldColumns(SQLite::Database& db, const char* table,
                     const std::vector<RecordField<R>>& fields, int version) {
  for (const auto& f : fields) {
    if (f.since != version) continue;
    db.exec(std::string("ALTER TABLE ") + table + " ADD COLUMN " + f.name + " " + f.sqlType() +
            (f.flag ? " NOT NULL DEFAULT 0" : ""));
  }
}

}  // namespace accumlab::store
