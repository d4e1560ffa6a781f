// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <SQLiteCpp/Database.h>

namespace accumlab::store {

/// A `running` run written from another host is presumed gone when its writer has not
/// committed for this long (a live writer commits at least every few seconds).
inline constexpr double kForeignHeartbeatTimeoutS = 120.0;

/// Marks `running` runs whose writer process is gone as `interrupted`, keeping their rows;
/// returns how many. Takes the write lock only when there is something to mark.
int markInterruptedRuns(SQLite::Database& db);

}  // namespace accumlab::store
