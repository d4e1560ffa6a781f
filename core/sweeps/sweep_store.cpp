// SPDX-License-Identifier: GPL-3.0-or-later
// The sweeps of a run store: a sweep, its points and their outcomes as they end.
#include "accumlab/sweep_store.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include "accumlab/input_error.h"
#include "store/columns.h"
#include "store/connection.h"
#include "store/store_clock.h"

namespace accumlab {

SweepStore::SweepStore(RunStore& store) : conn_(store.connection()) {}

int64_t SweepStore::create(const std::string& name, const SweepSpec& spec,
                           const std::vector<SweepPoint>& points) {
  return conn_.guarded("storing a sweep", [&] {
    SQLite::Transaction tx(conn_.db(), SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement q(conn_.db(),
                        "INSERT INTO sweeps (name, created_at, spec_json) VALUES (?, ?, ?)");
    store::bindColumns(q, 1, name, store::isoUtcNow(), sweepSpecToJson(spec));
    q.exec();
    const int64_t id = conn_.db().getLastInsertRowid();
    SQLite::Statement point(conn_.db(),
                            "INSERT INTO sweep_points (sweep_id, idx, micro_batch, accum, lr) "
                            "VALUES (?, ?, ?, ?, ?)");
    for (const SweepPoint& p : points) {
      store::bindColumns(point, 1, id, p.index, p.micro_batch, p.accum, p.lr);
      point.exec();
      point.reset();
    }
    tx.commit();
    return id;
  });
}

namespace {

constexpr char kSweepRowSql[] =
    "SELECT s.id, s.name, s.created_at, s.spec_json, COUNT(p.idx), "
    "SUM(p.status IN ('reached', 'missed', 'diverged', 'failed')), "
    "SUM(p.status = 'reached') "
    "FROM sweeps s LEFT JOIN sweep_points p ON p.sweep_id = s.id ";

SweepRow readSweepRow(SQLite::Statement& q) {
  SweepRow r;
  store::readColumns(q, 0, r.id, r.name, r.created_at, r.spec_json, r.points, r.done, r.reached);
  return r;
}

}  // namespace

std::vector<SweepRow> SweepStore::list() {
  return conn_.guarded("listing sweeps", [&] {
    SQLite::Statement q(conn_.db(), std::string(kSweepRowSql) + "GROUP BY s.id ORDER BY s.id DESC");
    std::vector<SweepRow> rows;
    while (q.executeStep()) rows.push_back(readSweepRow(q));
    return rows;
  });
}

SweepDetail SweepStore::get(int64_t sweep_id) {
  return conn_.guarded("reading sweep " + std::to_string(sweep_id), [&] {
    SweepDetail d;
    SQLite::Statement q(conn_.db(), std::string(kSweepRowSql) + "WHERE s.id = ? GROUP BY s.id");
    q.bind(1, sweep_id);
    if (!q.executeStep()) {
      throw InputError("there is no sweep " + std::to_string(sweep_id) + " in " + conn_.path() +
                       "; `accumlab-cli list --sweeps` shows the ids");
    }
    d.row = readSweepRow(q);
    SQLite::Statement points(conn_.db(),
                             "SELECT idx, micro_batch, accum, lr, run_id, status, result_json "
                             "FROM sweep_points WHERE sweep_id = ? ORDER BY idx");
    points.bind(1, sweep_id);
    while (points.executeStep()) {
      SweepPoint& p = d.points.emplace_back();
      p.index = points.getColumn(0).getInt64();
      p.micro_batch = points.getColumn(1).getInt64();
      p.accum = points.getColumn(2).getInt64();
      p.lr = points.getColumn(3).isNull() ? kNaN : points.getColumn(3).getDouble();
      p.run_id = points.getColumn(4).isNull() ? 0 : points.getColumn(4).getInt64();
      p.status = parseSweepStatus(points.getColumn(5).getString());
      sweepPointFromJson(points.getColumn(6).getString(), p);
    }
    return d;
  });
}

void SweepStore::updatePoint(int64_t sweep_id, const SweepPoint& p) {
  conn_.guarded("writing sweep " + std::to_string(sweep_id), [&] {
    SQLite::Statement q(conn_.db(),
                        "UPDATE sweep_points SET run_id = ?, status = ?, result_json = ? "
                        "WHERE sweep_id = ? AND idx = ?");
    const std::optional<int64_t> run_id =
        p.run_id > 0 ? std::optional<int64_t>(p.run_id) : std::nullopt;
    store::bindColumns(q, 1, run_id, p.status, sweepPointToJson(p), sweep_id, p.index);
    if (q.exec() == 0) {
      throw InputError("sweep " + std::to_string(sweep_id) + " has no point " +
                       std::to_string(p.index) + " in " + conn_.path());
    }
  });
}

}  // namespace accumlab
