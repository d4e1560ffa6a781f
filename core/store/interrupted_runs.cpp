// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/interrupted_runs.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <vector>

#include "store/process_identity.h"
#include "store/store_clock.h"

namespace accumlab::store {

int markInterruptedRuns(SQLite::Database& db) {
  std::vector<int64_t> gone;
  SQLite::Statement q(db,
                      "SELECT id, owner_host, owner_boot, owner_pid, owner_start, heartbeat_at "
                      "FROM runs WHERE status = 'running'");
  const double now = unixSecondsNow();
  while (q.executeStep()) {
    ProcessIdentity writer;
    writer.host = q.getColumn(1).getString();
    writer.boot_id = q.getColumn(2).getString();
    writer.pid = q.getColumn(3).getInt64();
    writer.start_ticks = q.getColumn(4).getInt64();
    const double heartbeat = q.getColumn(5).isNull() ? 0.0 : q.getColumn(5).getDouble();
    const Liveness state = liveness(writer);
    if (state == Liveness::kGone ||
        (state == Liveness::kUnknown && now - heartbeat > kForeignHeartbeatTimeoutS)) {
      gone.push_back(q.getColumn(0).getInt64());
    }
  }
  q.reset();
  if (gone.empty()) return 0;

  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  SQLite::Statement mark(db,
                         "UPDATE runs SET status = 'interrupted', message = ? "
                         "WHERE id = ? AND status = 'running'");
  int marked = 0;
  for (int64_t id : gone) {
    mark.bind(1, "the process writing this run ended before the run did");
    mark.bind(2, id);
    marked += mark.exec();
    mark.reset();
  }
  tx.commit();
  return marked;
}

}  // namespace accumlab::store
