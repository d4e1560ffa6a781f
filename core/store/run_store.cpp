// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/run_store.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "accumlab/input_error.h"
#include "records/record_fields.h"
#include "store/columns.h"
#include "store/connection.h"
#include "store/field_rows.h"
#include "store/interrupted_runs.h"
#include "store/process_identity.h"
#include "store/schema.h"
#include "store/store_clock.h"
#include "store/summary_json.h"

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

namespace {

constexpr char kTagSeparator = '\x1f';  ///< joins a run's tags in one SQL value

/// SQL for a run's `column` (micro_batch or accum) at its end: from its summary, which holds
/// the arm's sizes, else (a run that never ended) from its last stored step. Not the last
/// step first: a short last window (an epoch's end) has fewer micro-batches than K.
std::string endSize(const std::string& column) {
  return "COALESCE(CASE WHEN json_valid(r.summary_json) THEN json_extract(r.summary_json, '$." +
         column + "') END, (SELECT " + column +
         " FROM step_metrics s WHERE s.run_id = r.id ORDER BY step DESC LIMIT 1))";
}

/// The columns readRow() expects, in order.
const std::string& rowColumns() {
  // m and K at the run's end, looked up (one key seek each) only for runs whose experiment
  // recorded a change of m or K: listing a large store stays one pass over runs.
  static const std::string changed =
      "EXISTS (SELECT 1 FROM events ev WHERE ev.experiment_id = r.experiment_id AND ev.kind IN ('" +
      toString(EventKind::kMicroBatch) + "', '" + toString(EventKind::kAccum) + "'))";
  static const std::string columns =
      "r.id, r.experiment_id, e.name, r.name, r.started_at, r.ended_at, r.dataset, r.model, "
      "r.arm, r.micro_batch, r.accum, r.status, r.steps, r.samples_seen, r.final_loss, "
      "r.val_loss, r.val_accuracy, "
      "(SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM tags t WHERE t.run_id = r.id "
      "ORDER BY tag)), "
      "CASE WHEN " +
      changed + " THEN " + endSize("micro_batch") +
      " END, "
      "CASE WHEN " +
      changed + " THEN " + endSize("accum") + " END";
  return columns;
}

RunRow readRow(SQLite::Statement& q) {
  RunRow r;
  std::string tags;
  store::readColumns(q, 0, r.id, r.experiment_id, r.experiment_name, r.name, r.started_at,
                     r.ended_at, r.dataset, r.model, r.arm, r.micro_batch, r.accum, r.status,
                     r.steps, r.samples_seen, r.final_loss, r.val_loss, r.val_accuracy, tags);
  size_t start = 0;
  while (start < tags.size()) {
    const size_t end = std::min(tags.find(kTagSeparator, start), tags.size());
    r.tags.push_back(tags.substr(start, end - start));
    start = end + 1;
  }
  r.last_micro_batch = q.getColumn(18).isNull() ? r.micro_batch : q.getColumn(18).getInt64();
  r.last_accum = q.getColumn(19).isNull() ? r.accum : q.getColumn(19).getInt64();
  return r;
}

/// The records of `table` that run `run_id` (arm `arm`) stored, in step order: `fields`, then
/// the text column `extra`, handed to `take_extra` where it is not NULL.
template <typename R, typename TakeExtra>
std::vector<R> readRunRecords(SQLite::Database& db, const char* table,
                              const std::vector<RecordField<R>>& fields, const char* extra,
                              int64_t run_id, ArmKind arm, TakeExtra take_extra) {
  SQLite::Statement q(db, "SELECT " + store::fieldColumns(fields) + ", " + extra + " FROM " +
                              table + " WHERE run_id = ? ORDER BY step, id");
  q.bind(1, run_id);
  std::vector<R> records;
  while (q.executeStep()) {
    R& r = records.emplace_back();
    r.arm = arm;
    const int at = store::readFields(q, 0, r, fields);
    if (!q.getColumn(at).isNull()) take_extra(r, q.getColumn(at).getString());
  }
  return records;
}

}  // namespace

double runWallSeconds(const RunRow& r) {
  const double start = store::unixSecondsOf(r.started_at);
  const double end = store::unixSecondsOf(r.ended_at);
  return start > 0 && end >= start ? end - start : kNaN;
}

std::string batchSizesText(int64_t m, int64_t k, int64_t last_m, int64_t last_k) {
  const std::string start = std::to_string(m) + "×" + std::to_string(k);
  if (last_m == m && last_k == k) return start;
  return start + "→" + std::to_string(last_m) + "×" + std::to_string(last_k);
}

namespace {

std::string selectStepsSql() {
  return "SELECT " + store::fieldColumns(stepFields()) +
         " FROM step_metrics WHERE run_id = ? AND step > ? ORDER BY step";
}

std::string checkedTag(const std::string& tag) {
  if (tag.empty() || tag.find_first_of(" \t\r\n\x1f") != std::string::npos) {
    throw InputError("tag '" + tag + "' is not valid; a tag is one word without spaces");
  }
  return tag;
}

}  // namespace

std::string RunStore::Impl::noSuchRun(int64_t id) const {
  return "there is no run " + std::to_string(id) + " in " + conn.path() +
         "; `accumlab-cli list` shows the ids";
}
void RunStore::Impl::requireRun(int64_t id) {
  SQLite::Statement q(db(), "SELECT 1 FROM runs WHERE id = ?");
  q.bind(1, id);
  if (!q.executeStep()) throw InputError(noSuchRun(id));
}
RunRow RunStore::Impl::row(int64_t id) {
  SQLite::Statement q(db(), std::string("SELECT ") + rowColumns() +
                                " FROM runs r JOIN experiments e ON e.id = r.experiment_id "
                                "WHERE r.id = ?");
  q.bind(1, id);
  if (!q.executeStep()) throw InputError(noSuchRun(id));
  return readRow(q);
}
std::vector<StepRecord> RunStore::Impl::steps(int64_t id, ArmKind arm, int64_t after,
                                              int64_t expected) {
  static const std::string kSql = selectStepsSql();
  // The raw API in this one loop: SQLiteCpp's Column copies a shared_ptr per cell, which
  // is most of the cost of loading 100k rows × 25 columns.
  sqlite3* handle = db().getHandle();
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(handle, kSql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    throw SQLite::Exception(handle, sqlite3_errcode(handle));
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  sqlite3_bind_int64(raw, 1, id);
  sqlite3_bind_int64(raw, 2, after);
  std::vector<StepRecord> out;
  out.reserve(static_cast<size_t>(std::clamp<int64_t>(expected, 0, int64_t{1} << 24)));
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
    StepRecord& r = out.emplace_back();
    r.arm = arm;
    store::readFields(raw, 0, r, stepFields());
  }
  if (rc != SQLITE_DONE) throw SQLite::Exception(handle, rc);
  return out;
}

std::string RunStore::defaultPath() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  std::string base;
  if (xdg && xdg[0] == '/') {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && home[0]) {
    base = std::string(home) + "/.local/share";
  } else {
    base = ".";
  }
  return base + "/AccumLab/runs.sqlite";
}

int RunStore::schemaVersion() { return store::kSchemaVersion; }

bool RunStore::wouldOverwrite(const std::string& db_path, const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    if (std::filesystem::equivalent(db_path + suffix, path, ec) && !ec) return true;
  }
  return false;
}

void RunStore::refuseReadingStore(const ExperimentConfig& config, const std::string& db_path) {
  for (const auto& [spec, what] : {std::pair<std::string, const char*>{config.data, "dataset"},
                                   std::pair<std::string, const char*>{config.model, "model"}}) {
    for (const char* prefix : {"csv:", "text:", "torchscript:"}) {
      if (spec.rfind(prefix, 0) != 0) continue;
      const std::string file = spec.substr(std::string(prefix).size());
      if (wouldOverwrite(db_path, file)) {
        throw InputError("the " + std::string(what) + " file " + file + " is the run database " +
                         db_path + "; choose the " + what + "'s own file");
      }
    }
  }
}

RunStore::RunStore(const std::string& path, const StoreOptions& options)
    : impl_(std::make_unique<Impl>(path, options)) {
  if (impl_->conn.readOnly()) return;
  try {
    store::markInterruptedRuns(impl_->db());
  } catch (const SQLite::Exception& e) {
    // A writer holding the lock is alive; its stale neighbours get marked next time.
    if (e.getErrorCode() != SQLITE_BUSY && e.getErrorCode() != SQLITE_LOCKED) {
      impl_->conn.rethrow("checking for interrupted runs");
    }
  }
}

RunStore::~RunStore() = default;

const std::string& RunStore::path() const { return impl_->conn.path(); }

store::Connection& RunStore::connection() { return impl_->conn; }

int RunStore::markInterruptedRuns() {
  return impl_->conn.guarded("marking interrupted runs",
                             [&] { return store::markInterruptedRuns(impl_->db()); });
}

std::string RunStore::integrityCheck() {
  return impl_->conn.guarded("checking its integrity", [&] {
    return impl_->db().execAndGet("PRAGMA integrity_check").getString();
  });
}

std::vector<RunRow> RunStore::listRuns(const RunFilter& f) {
  return impl_->conn.guarded("listing runs", [&] {
    SQLite::Statement q(impl_->db(),
                        std::string("SELECT ") + rowColumns() +
                            " FROM runs r JOIN experiments e ON e.id = r.experiment_id "
                            "WHERE (?1 = '' OR EXISTS (SELECT 1 FROM tags t WHERE "
                            "t.run_id = r.id AND t.tag = ?1)) "
                            "AND (?2 = '' OR r.dataset = ?2) AND (?3 = '' OR r.status = ?3) "
                            "AND (?4 = 0 OR r.experiment_id = ?4) "
                            "ORDER BY r.id DESC LIMIT ?5");
    q.bind(1, f.tag);
    q.bind(2, f.dataset);
    q.bind(3, f.status ? toString(*f.status) : std::string());
    q.bind(4, f.experiment_id);
    q.bind(5, f.limit > 0 ? f.limit : int64_t{-1});
    std::vector<RunRow> rows;
    while (q.executeStep()) rows.push_back(readRow(q));
    return rows;
  });
}

bool RunStore::hasRun(int64_t run_id) {
  return impl_->conn.guarded("looking up a run", [&] {
    SQLite::Statement q(impl_->db(), "SELECT 1 FROM runs WHERE id = ?");
    q.bind(1, run_id);
    return q.executeStep();
  });
}

RunDetail RunStore::run(int64_t run_id) {
  return impl_->conn.guarded("reading run " + std::to_string(run_id), [&] {
    RunDetail d;
    d.row = impl_->row(run_id);
    SQLite::Statement q(impl_->db(),
                        "SELECT r.config_json, r.summary_json, r.message, e.device, "
                        "e.dataset_description, e.model_description, "
                        "(SELECT text FROM notes n WHERE n.run_id = r.id) "
                        "FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.id = ?");
    q.bind(1, run_id);
    q.executeStep();
    std::string message;
    store::readColumns(q, 0, d.config_json, d.summary_json, message, d.device,
                       d.dataset_description, d.model_description, d.note);
    d.config = configFromJson(d.config_json, path() + " (run " + std::to_string(run_id) + ")");
    const nlohmann::json summary = nlohmann::json::parse(d.summary_json, nullptr, false);
    if (summary.is_object() && !summary.empty()) {
      d.summary = store::armSummaryFromJson(summary);
    } else {
      d.summary.micro_batch = d.row.micro_batch;
      d.summary.accum = d.row.accum;
      d.summary.steps = d.row.steps;
      d.summary.samples_seen = d.row.samples_seen;
      d.summary.final_train_loss = d.row.final_loss;
      d.summary.val_loss = d.row.val_loss;
      d.summary.val_accuracy = d.row.val_accuracy;
    }
    d.summary.arm = d.row.arm;
    d.summary.status = d.row.status;  // the row knows about interruptions; the JSON does not
    d.summary.message = message;

    SQLite::Statement ev(impl_->db(),
                         "SELECT samples_seen, wall_ms, kind, arm, message FROM events "
                         "WHERE experiment_id = ? AND (arm = '' OR arm = ?) ORDER BY id");
    ev.bind(1, d.row.experiment_id);
    ev.bind(2, toString(d.row.arm));
    while (ev.executeStep()) {
      EventRecord e;
      e.samples_seen = ev.getColumn(0).getInt64();
      e.wall_ms = ev.getColumn(1).getDouble();
      e.kind = parseEventKind(ev.getColumn(2).getString());
      if (const std::string arm = ev.getColumn(3).getString(); !arm.empty()) {
        e.arm = parseArmKind(arm);
      }
      e.message = ev.getColumn(4).getString();
      d.events.push_back(std::move(e));
    }
    return d;
  });
}

std::optional<ArmWeights> RunStore::weights(int64_t run_id) {
  return impl_->conn.guarded("reading run " + std::to_string(run_id) + "'s weights", [&] {
    SQLite::Transaction tx(impl_->db());
    const RunRow row = impl_->row(run_id);
    SQLite::Statement q(impl_->db(), "SELECT format, data FROM run_weights WHERE run_id = ?");
    q.bind(1, run_id);
    std::optional<ArmWeights> w;
    if (q.executeStep()) {
      w.emplace();
      w->arm = row.arm;
      w->format = q.getColumn(0).getString();
      const SQLite::Column data = q.getColumn(1);
      w->data.assign(static_cast<const char*>(data.getBlob()),
                     static_cast<size_t>(data.getBytes()));
    }
    return w;
  });
}

int64_t RunStore::weightsBytes(int64_t run_id) {
  return impl_->conn.guarded("reading run " + std::to_string(run_id) + "'s weights", [&] {
    SQLite::Statement q(impl_->db(), "SELECT bytes FROM run_weights WHERE run_id = ?");
    q.bind(1, run_id);
    return q.executeStep() ? q.getColumn(0).getInt64() : int64_t{0};
  });
}

RunSeries RunStore::series(int64_t run_id) {
  return impl_->conn.guarded("reading run " + std::to_string(run_id) + "'s metrics", [&] {
    // One read transaction: a writer committing meanwhile cannot split steps from evals.
    SQLite::Transaction tx(impl_->db());
    const RunRow row = impl_->row(run_id);
    RunSeries s;
    s.steps = impl_->steps(run_id, row.arm, std::numeric_limits<int64_t>::min(), row.steps);
    s.evals =
        readRunRecords(impl_->db(), "evals", evalFields(), "text_sample", run_id, row.arm,
                       [](EvalRecord& e, std::string text) { e.text_sample = std::move(text); });
    s.probes = readRunRecords(impl_->db(), "probes", probeFields(), "histogram_json", run_id,
                              row.arm, [](ProbeRecord& r, const std::string& json) {
                                r.histogram = store::histogramFromJson(json);
                              });
    tx.commit();
    return s;
  });
}

int64_t RunStore::stepRowCount() {
  return impl_->conn.guarded("counting rows", [&] {
    return impl_->db().execAndGet("SELECT count(*) FROM step_metrics").getInt64();
  });
}

// Runs `sql` (bound to run_id, tag) once per tag in one transaction. A template so that it
// can take the private Impl without naming it.
template <typename Impl>
void changeTags(Impl& impl, const char* what, const char* sql, int64_t run_id,
                const std::vector<std::string>& tags) {
  impl.conn.guarded(std::string(what) + " run " + std::to_string(run_id), [&] {
    SQLite::Transaction tx(impl.db(), SQLite::TransactionBehavior::IMMEDIATE);
    impl.requireRun(run_id);
    SQLite::Statement q(impl.db(), sql);
    for (const auto& t : tags) {
      q.bind(1, run_id);
      q.bind(2, t);
      q.exec();
      q.reset();
    }
    tx.commit();
  });
}

void RunStore::addTags(int64_t run_id, const std::vector<std::string>& tags) {
  for (const auto& t : tags) checkedTag(t);
  changeTags(*impl_, "tagging", "INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?, ?)", run_id,
             tags);
}

void RunStore::removeTags(int64_t run_id, const std::vector<std::string>& tags) {
  changeTags(*impl_, "untagging", "DELETE FROM tags WHERE run_id = ? AND tag = ?", run_id, tags);
}

std::vector<std::string> RunStore::allTags() {
  return impl_->conn.guarded("listing tags", [&] {
    SQLite::Statement q(impl_->db(), "SELECT DISTINCT tag FROM tags ORDER BY tag");
    std::vector<std::string> tags;
    while (q.executeStep()) tags.push_back(q.getColumn(0).getString());
    return tags;
  });
}

void RunStore::setNote(int64_t run_id, const std::string& text) {
  impl_->conn.guarded("writing run " + std::to_string(run_id) + "'s note", [&] {
    SQLite::Transaction tx(impl_->db(), SQLite::TransactionBehavior::IMMEDIATE);
    impl_->requireRun(run_id);
    SQLite::Statement q(impl_->db(), text.empty() ? "DELETE FROM notes WHERE run_id = ?"
                                                  : "INSERT OR REPLACE INTO notes (run_id, text, "
                                                    "updated_at) VALUES (?, ?, ?)");
    q.bind(1, run_id);
    if (!text.empty()) {
      q.bind(2, text);
      q.bind(3, store::isoUtcNow());
    }
    q.exec();
    tx.commit();
  });
}

void RunStore::rename(int64_t run_id, const std::string& name) {
  impl_->conn.guarded("renaming run " + std::to_string(run_id), [&] {
    SQLite::Statement q(impl_->db(), "UPDATE runs SET name = ? WHERE id = ?");
    q.bind(1, name);
    q.bind(2, run_id);
    if (q.exec() == 0) throw InputError(impl_->noSuchRun(run_id));
  });
}

void RunStore::deleteRuns(const std::vector<int64_t>& run_ids) {
  impl_->conn.guarded("deleting runs", [&] {
    SQLite::Transaction tx(impl_->db(), SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement owner(impl_->db(),
                            "SELECT status, owner_host, owner_boot, owner_pid, owner_start "
                            "FROM runs WHERE id = ?");
    for (int64_t id : run_ids) {
      owner.bind(1, id);
      if (!owner.executeStep()) throw InputError(impl_->noSuchRun(id));
      if (owner.getColumn(0).getString() == "running") {
        store::ProcessIdentity writer{owner.getColumn(1).getString(),
                                      owner.getColumn(2).getString(), owner.getColumn(3).getInt64(),
                                      owner.getColumn(4).getInt64()};
        if (store::liveness(writer) != store::Liveness::kGone) {
          throw InputError("run " + std::to_string(id) + " in " + path() +
                           " is still being written by a running process; stop it first");
        }
      }
      owner.reset();
    }
    SQLite::Statement del(impl_->db(), "DELETE FROM runs WHERE id = ?");
    for (int64_t id : run_ids) {
      del.bind(1, id);
      del.exec();
      del.reset();
    }
    impl_->db().exec(
        "DELETE FROM experiments WHERE id NOT IN (SELECT DISTINCT experiment_id FROM runs)");
    tx.commit();
  });
}

}  // namespace accumlab
