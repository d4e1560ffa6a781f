// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// RunStore's state, shared by the files that make it up (private to core/store): run_store.cpp
// opens the store and reads and manages runs, run_store_sweeps.cpp the sweeps and their points,
// run_store_lessons.cpp the lesson results, run_exporter.cpp the exports.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/run_store.h"
#include "store/connection.h"

namespace accumlab {

struct RunStore::Impl {
  explicit Impl(const std::string& path, const StoreOptions& options) : conn(path, options) {}
  store::Connection conn;

  SQLite::Database& db() { return conn.db(); }
  /// "there is no run 7 in FILE; `accumlab-cli list` shows the ids"
  std::string noSuchRun(int64_t id) const;
  /// Throws InputError(noSuchRun(id)) when the run is not stored.
  void requireRun(int64_t id);
  RunRow row(int64_t id);
  /// The run's steps after `after`; `expected` sizes the vector up front.
  std::vector<StepRecord> steps(int64_t id, ArmKind arm, int64_t after, int64_t expected);
};

}  // namespace accumlab
