// SPDX-License-Identifier: GPL-3.0-or-later
// Merging stores: every source is read through SQLite into memory (so an older schema can be
// upgraded there and the source file is never written), then copied row by row into the
// destination with new ids, inside one transaction. Columns are copied by name, as the
// destination's table lists them, so a column added by a later schema comes along with no
// change here.
#include "accumlab/store_merger.h"

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "accumlab/input_error.h"
#include "store/connection.h"
#include "store/schema.h"
#include "store/store_file.h"

namespace accumlab {

namespace {

/// How long reading a source waits for a writer's lock on it.
constexpr int kMergeSourceBusyMs = 5000;

/// A source id to its destination id (0: none, stored as NULL).
using MergeIdMap = std::map<int64_t, int64_t>;

/// The columns of `table` in `db`, in order, without its `id` (the destination draws new ids).
std::vector<std::string> mergeColumns(SQLite::Database& db, const std::string& table) {
  std::vector<std::string> columns;
  SQLite::Statement q(db, "SELECT name FROM pragma_table_info(?)");
  q.bind(1, table);
  while (q.executeStep()) {
    const std::string name = q.getColumn(0).getString();
    if (name != "id") columns.push_back(name);
  }
  return columns;
}

/// One prepared statement of SQLite's C API (SQLiteCpp hides its handle, and copying a value
/// column to a parameter as it is, type and all, needs sqlite3_bind_value).
class MergeStatement {
 public:
  MergeStatement(SQLite::Database& db, const std::string& sql) : db_(db.getHandle()) {
    check(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt_, nullptr));
  }
  ~MergeStatement() { sqlite3_finalize(stmt_); }
  MergeStatement(const MergeStatement&) = delete;
  MergeStatement& operator=(const MergeStatement&) = delete;

  sqlite3_stmt* get() { return stmt_; }
  /// Steps once: true while there is a row.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) check(rc);
    return false;
  }
  void reset() { sqlite3_reset(stmt_); }
  /// Throws SQLite::Exception for an error code, as SQLiteCpp does.
  void check(int rc) {
    if (rc != SQLITE_OK) throw SQLite::Exception(db_, rc);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// Copies the rows of one table that one SELECT finds, column by column, through one prepared
/// INSERT; integer columns named in `remaps` go through their id map (NULL when absent).
class MergeTableCopy {
 public:
  MergeTableCopy(SQLite::Database& from, SQLite::Database& to, const std::string& table,
                 const std::string& where, std::map<std::string, const MergeIdMap*> remaps)
      : columns_(mergeColumns(to, table)) {
    std::string list, marks;
    for (const std::string& c : columns_) {
      list += (list.empty() ? "" : ", ") + c;
      marks += marks.empty() ? "?" : ", ?";
      auto found = remaps.find(c);
      maps_.push_back(found == remaps.end() ? nullptr : found->second);
    }
    select_ =
        std::make_unique<MergeStatement>(from, "SELECT " + list + " FROM " + table + " " + where);
    insert_ = std::make_unique<MergeStatement>(
        to, "INSERT INTO " + table + " (" + list + ") VALUES (" + marks + ")");
  }

  /// Copies the rows the SELECT finds with `key` bound to its one parameter; returns how many.
  int64_t copy(int64_t key) {
    select_->reset();
    select_->check(sqlite3_bind_int64(select_->get(), 1, key));
    sqlite3_stmt* from = select_->get();
    sqlite3_stmt* to = insert_->get();
    int64_t rows = 0;
    while (select_->step()) {
      for (size_t i = 0; i < columns_.size(); ++i) {
        const int c = static_cast<int>(i);
        int rc = SQLITE_OK;
        if (maps_[i] == nullptr || sqlite3_column_type(from, c) == SQLITE_NULL) {
          rc = sqlite3_bind_value(to, c + 1, sqlite3_column_value(from, c));
        } else {
          const auto found = maps_[i]->find(sqlite3_column_int64(from, c));
          rc = found == maps_[i]->end() || found->second == 0
                   ? sqlite3_bind_null(to, c + 1)
                   : sqlite3_bind_int64(to, c + 1, found->second);
        }
        insert_->check(rc);
      }
      insert_->step();
      insert_->reset();
      ++rows;
    }
    return rows;
  }

 private:
  std::vector<std::string> columns_;
  std::vector<const MergeIdMap*> maps_;
  std::unique_ptr<MergeStatement> select_;
  std::unique_ptr<MergeStatement> insert_;
};

/// Rethrows an SQLite failure on a source as the store's sentence for it.
[[noreturn]] void refuseMergeSource(const std::string& path, const SQLite::Exception& e) {
  const std::string message =
      store::describeStoreError(path, e.getErrorCode(), e.what(), "reading it to merge", 0);
  if (!message.empty()) throw InputError(message);
  throw std::runtime_error("merging " + path + ": " + e.what());
}

/// Opens a source store read-only and refuses what cannot be merged before anything is
/// written: not a file, not SQLite, another program's, newer than this build, corrupt, or the
/// destination itself. Returns the file's schema version.
int checkMergeSource(const std::string& path, const std::string& destination) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw InputError("no run store at " + path + "; name an existing file to merge");
  }
  if (fs::is_directory(path, ec)) {
    throw InputError(path + " is a folder, not a run store to merge; name its .sqlite file");
  }
  if (RunStore::wouldOverwrite(destination, path)) {
    throw InputError(path + " is the destination store itself; merge other stores into it");
  }
  const bool had_bytes = fs::file_size(path, ec) > 0 && !ec;
  try {
    SQLite::Database db = store::openStoreFile(path, SQLite::OPEN_READONLY | SQLite::OPEN_NOMUTEX,
                                               kMergeSourceBusyMs);
    const int version = db.execAndGet("PRAGMA user_version").getInt();
    if (had_bytes && db.execAndGet("PRAGMA page_count").getInt64() == 0) {
      throw InputError(path + " is not an SQLite database (expected an AccumLab run store)");
    }
    if (version > store::kSchemaVersion) {
      throw InputError(path + " was written by a newer AccumLab (schema version " +
                       std::to_string(version) + ", this build reads up to " +
                       std::to_string(store::kSchemaVersion) + "); merge it with that version");
    }
    if (version == 0) {
      throw InputError(path +
                       " is not an AccumLab run store (it is empty or another "
                       "program's SQLite database)");
    }
    const std::string integrity = db.execAndGet("PRAGMA integrity_check").getString();
    if (integrity != "ok") {
      // SQLite lists every problem, a line each: the first names the kind.
      std::string first;
      size_t problems = 0;
      for (size_t at = 0; at < integrity.size();) {
        const size_t end = std::min(integrity.find('\n', at), integrity.size());
        const std::string line = integrity.substr(at, end - at);
        if (!line.empty() && line.rfind("***", 0) != 0 && problems++ == 0) first = line;
        at = end + 1;
      }
      throw InputError(path + " is corrupt (" + first +
                       (problems > 1 ? " and " + std::to_string(problems - 1) + " more" : "") +
                       "); nothing was merged: restore a backup of it");
    }
    return version;
  } catch (const SQLite::Exception& e) {
    refuseMergeSource(path, e);
  }
}

/// Reads the source into `memory` (an empty in-memory database) and upgrades it to this
/// build's schema there.
void loadMergeSource(const std::string& path, SQLite::Database& memory) {
  try {
    SQLite::Database file = store::openStoreFile(path, SQLite::OPEN_READONLY | SQLite::OPEN_NOMUTEX,
                                                 kMergeSourceBusyMs);
    SQLite::Backup(memory, file).executeStep();
    store::migrateSchema(memory);
  } catch (const SQLite::Exception& e) {
    refuseMergeSource(path, e);
  }
}

/// Whether `sql` with `values` bound finds a row in `db`; sets `id` to its first column.
bool mergeFind(SQLite::Database& db, const std::string& sql, const std::vector<std::string>& values,
               int64_t& id) {
  SQLite::Statement q(db, sql);
  for (size_t i = 0; i < values.size(); ++i) q.bind(static_cast<int>(i) + 1, values[i]);
  if (!q.executeStep()) return false;
  id = q.getColumn(0).getInt64();
  return true;
}

/// Copies one source's content (`from`, in memory) into `to`, inside the caller's transaction.
void mergeOne(SQLite::Database& from, SQLite::Database& to, MergedStore& out) {
  MergeIdMap runs, experiments, sweeps;
  std::map<int64_t, int64_t> run_experiment;  // source run → source experiment
  {
    SQLite::Statement q(from, "SELECT id, experiment_id, uid FROM runs ORDER BY id");
    SQLite::Statement known(to, "SELECT id, experiment_id FROM runs WHERE uid = ?");
    while (q.executeStep()) {
      MergedRun r;
      r.source_id = q.getColumn(0).getInt64();
      r.uid = q.getColumn(2).getString();
      run_experiment[r.source_id] = q.getColumn(1).getInt64();
      known.reset();
      known.bind(1, r.uid);
      if (known.executeStep()) {
        r.id = known.getColumn(0).getInt64();
        runs[r.source_id] = r.id;
        // The experiment merged before: its other runs, when new, join it.
        experiments.emplace(q.getColumn(1).getInt64(), known.getColumn(1).getInt64());
        ++out.runs_skipped;
      }
      out.runs.push_back(r);
    }
  }
  MergeTableCopy experiment(from, to, "experiments", "WHERE id = ?", {});
  MergeTableCopy events(from, to, "events", "WHERE experiment_id = ? ORDER BY id",
                        {{"experiment_id", &experiments}});
  MergeTableCopy run(from, to, "runs", "WHERE id = ?", {{"experiment_id", &experiments}});
  std::vector<MergeTableCopy> rows;
  for (const char* table : {"step_metrics", "evals", "probes", "tags", "notes", "run_weights"}) {
    rows.emplace_back(from, to, table, "WHERE run_id = ?",
                      std::map<std::string, const MergeIdMap*>{{"run_id", &runs}});
  }
  for (MergedRun& r : out.runs) {
    if (r.id != 0) continue;
    const int64_t source_experiment = run_experiment[r.source_id];
    if (experiments.count(source_experiment) == 0) {
      experiment.copy(source_experiment);
      experiments[source_experiment] = to.getLastInsertRowid();
      ++out.experiments_added;
      events.copy(source_experiment);
    }
    run.copy(r.source_id);
    r.id = to.getLastInsertRowid();
    r.added = true;
    runs[r.source_id] = r.id;
    ++out.runs_added;
    out.step_rows_added += rows[0].copy(r.source_id);
    for (size_t t = 1; t < rows.size(); ++t) rows[t].copy(r.source_id);
  }
  // Sweeps and lesson results carry no uid: one with the same content is the same.
  MergeTableCopy sweep(from, to, "sweeps", "WHERE id = ?", {});
  MergeTableCopy points(from, to, "sweep_points", "WHERE sweep_id = ? ORDER BY idx",
                        {{"sweep_id", &sweeps}, {"run_id", &runs}});
  {
    SQLite::Statement q(from, "SELECT id, name, created_at, spec_json FROM sweeps ORDER BY id");
    while (q.executeStep()) {
      int64_t id = 0;
      if (mergeFind(
              to, "SELECT id FROM sweeps WHERE name = ? AND created_at = ? AND spec_json = ?",
              {q.getColumn(1).getString(), q.getColumn(2).getString(), q.getColumn(3).getString()},
              id)) {
        ++out.sweeps_skipped;
        continue;
      }
      const int64_t source_id = q.getColumn(0).getInt64();
      sweep.copy(source_id);
      sweeps[source_id] = to.getLastInsertRowid();
      points.copy(source_id);
      ++out.sweeps_added;
    }
  }
  SQLite::Statement lessons(from,
                            "SELECT id, lesson_id, finished_at, verdict_json, run_ids_json "
                            "FROM lesson_results ORDER BY id");
  MergeTableCopy lesson(from, to, "lesson_results", "WHERE id = ?", {});
  while (lessons.executeStep()) {
    int64_t id = 0;
    if (mergeFind(to,
                  "SELECT id FROM lesson_results WHERE lesson_id = ? AND finished_at = ? AND "
                  "verdict_json = ?",
                  {lessons.getColumn(1).getString(), lessons.getColumn(2).getString(),
                   lessons.getColumn(3).getString()},
                  id)) {
      ++out.lesson_results_skipped;
      continue;
    }
    lesson.copy(lessons.getColumn(0).getInt64());
    const int64_t added = to.getLastInsertRowid();
    // Its runs, by their ids here (a run the source no longer holds is left out).
    nlohmann::json ids = nlohmann::json::array();
    const nlohmann::json old =
        nlohmann::json::parse(lessons.getColumn(4).getString(), nullptr, false);
    if (old.is_array()) {
      for (const auto& id_value : old) {
        if (!id_value.is_number_integer()) continue;
        const auto found = runs.find(id_value.get<int64_t>());
        if (found != runs.end()) ids.push_back(found->second);
      }
    }
    SQLite::Statement set(to, "UPDATE lesson_results SET run_ids_json = ? WHERE id = ?");
    set.bind(1, ids.dump());
    set.bind(2, added);
    set.exec();
    ++out.lesson_results_added;
  }
}

}  // namespace

StoreMerger::StoreMerger(RunStore& destination) : destination_(destination) {}

std::vector<MergedStore> StoreMerger::merge(const std::vector<std::string>& sources) {
  store::Connection& conn = destination_.connection();
  std::vector<int> versions;
  // Every source is refused or accepted before the destination is touched.
  for (const std::string& path : sources) versions.push_back(checkMergeSource(path, conn.path()));
  return conn.guarded("merging stores into it", [&] {
    std::vector<MergedStore> merged;
    SQLite::Transaction tx(conn.db(), SQLite::TransactionBehavior::IMMEDIATE);
    for (size_t i = 0; i < sources.size(); ++i) {
      MergedStore out;
      out.path = sources[i];
      out.schema_version = versions[i];
      SQLite::Database from = store::openStoreFile(
          ":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX, 0);
      loadMergeSource(sources[i], from);
      mergeOne(from, conn.db(), out);
      merged.push_back(std::move(out));
    }
    tx.commit();
    return merged;
  });
}

}  // namespace accumlab
