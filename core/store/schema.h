// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <SQLiteCpp/Database.h>

namespace accumlab::store {

/// The schema version this build writes and reads (`PRAGMA user_version`).
/// 1: the first release. 2: run and experiment ids are AUTOINCREMENT (never reused).
/// 3: steps record the applied gradient norm, the gradient check, and mark noise probes.
/// 4: steps record the detrended loss variance; the variance probes get their table.
/// 5: steps record the peak tensor bytes of their window. 6: sweeps. 7: lesson results.
/// 8: steps record the all-reduce time. 9: steps record the float64 repeat of a gradient check.
/// 10: probes record their pool and the histogram of their mean losses. 11: text columns.
/// 12: probes keep the excess kurtosis their interval assumed. 13: each run has a stable
/// identity (`runs.uid`), so that merging a store twice adds nothing. 14: each run keeps its
/// arm's final weights as a TorchScript model (`run_weights`).
inline constexpr int kSchemaVersion = 14;

/// Creates or upgrades the tables. Every step from the file's version to kSchemaVersion runs
/// in one IMMEDIATE transaction, so a failed migration leaves the file as it was.
/// The caller has already refused files newer than kSchemaVersion. `to_version` below
/// kSchemaVersion builds an older file (for the migration tests).
void migrateSchema(SQLite::Database& db, int to_version = kSchemaVersion);

}  // namespace accumlab::store
