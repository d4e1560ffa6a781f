// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/run_store.h"

namespace accumlab {

/// One run of a source store, as a merge left it.
struct MergedRun {
  int64_t source_id = 0;  ///< its id in the source store
  int64_t id = 0;         ///< its id in the destination (a new one, or the copy merged before)
  std::string uid;        ///< its stable identity (`runs.uid`), the same in both stores
  bool added = false;     ///< false: the destination already held it, nothing was copied
};

/// What merging one source store added to the destination and what it skipped.
struct MergedStore {
  std::string path;             ///< the source file
  int schema_version = 0;       ///< its schema version (upgraded in memory when older)
  std::vector<MergedRun> runs;  ///< every run of the source, in source id order
  int64_t experiments_added = 0;
  int64_t runs_added = 0;
  int64_t runs_skipped = 0;  ///< runs the destination already held (same uid)
  int64_t step_rows_added = 0;
  int64_t sweeps_added = 0;
  int64_t sweeps_skipped = 0;  ///< sweeps already there (same name, creation time and spec)
  int64_t lesson_results_added = 0;
  int64_t lesson_results_skipped = 0;  ///< the same lesson, time and verdict already there
};

/// Copies the runs of other stores into one (docs/clusters.md#bringing-runs-home): experiments,
/// runs with their steps, evaluations, probes, tags and notes, events, sweeps and lesson
/// results, each with new ids in the destination. A run is known by its uid, so merging the
/// same source again adds nothing; a sweep point or lesson result then refers to the copy
/// already there.
///
/// Threads: uses the destination RunStore's connection, so it follows that store's thread rule.
class StoreMerger {
 public:
  explicit StoreMerger(RunStore& destination);

  /// Merges every source in one transaction: all of them or, on any error, nothing. Each
  /// source is checked first (an AccumLab store, not newer than this build, `PRAGMA
  /// integrity_check` ok, not the destination itself) and read through SQLite into memory,
  /// where an older schema is upgraded; the source files are never changed. Throws
  /// InputError naming the file that was refused.
  std::vector<MergedStore> merge(const std::vector<std::string>& sources);

 private:
  RunStore& destination_;
};

}  // namespace accumlab
