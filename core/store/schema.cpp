// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/schema.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "accumlab/input_error.h"
#include "records/record_fields.h"
#include "store/field_rows.h"

namespace accumlab::store {

namespace {

/// 32 hex digits from two FNV-1a hashes of `content` (a stable identity, not a secret).
std::string contentUid(const std::string& content) {
  uint64_t a = 14695981039346656037ull;
  uint64_t b = 0x9e3779b97f4a7c15ull;
  for (unsigned char ch : content) {
    a = (a ^ ch) * 1099511628211ull;
    b = (b ^ ch) * 0x100000001b3ull + 0x2545f4914f6cdd1dull;
  }
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return text;
}

/// The step_metrics table as version 1 made it; later columns come from migrations.
std::string stepMetricsTable() {
  std::string sql =
      "CREATE TABLE step_metrics ("
      " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE";
  for (const auto& f : stepFields()) {
    if (f.since == 1) sql += std::string(", ") + f.name + " " + f.sqlType();
  }
  // (run_id, step) is the key: one run's series is one contiguous range of the b-tree,
  // which is what makes loading a run fast on a file of millions of rows.
  sql += ", PRIMARY KEY (run_id, step)) WITHOUT ROWID;";
  return sql;
}

/// The columns of `experiments` after its id (unchanged since version 1).
constexpr char kExperimentColumns[] = R"SQL(
      name TEXT NOT NULL DEFAULT '',
      created_at TEXT NOT NULL,
      device TEXT NOT NULL DEFAULT '',
      dataset_description TEXT NOT NULL DEFAULT '',
      model_description TEXT NOT NULL DEFAULT '',
      train_samples INTEGER NOT NULL DEFAULT 0,
      val_samples INTEGER NOT NULL DEFAULT 0,
      budget_samples INTEGER NOT NULL DEFAULT 0,
      parameters INTEGER NOT NULL DEFAULT 0,
      class_names_json TEXT NOT NULL DEFAULT '[]')SQL";

/// The columns of `runs` after its id (unchanged since version 1).
constexpr char kRunColumns[] = R"SQL(
      experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
      arm TEXT NOT NULL,
      name TEXT NOT NULL DEFAULT '',
      dataset TEXT NOT NULL,
      model TEXT NOT NULL,
      micro_batch INTEGER NOT NULL,
      accum INTEGER NOT NULL,
      config_json TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN
        ('running', 'finished', 'stopped', 'diverged', 'failed', 'interrupted')),
      message TEXT NOT NULL DEFAULT '',
      started_at TEXT NOT NULL,
      ended_at TEXT,
      summary_json TEXT NOT NULL DEFAULT '{}',
      steps INTEGER NOT NULL DEFAULT 0,
      samples_seen INTEGER NOT NULL DEFAULT 0,
      final_loss REAL,
      val_loss REAL,
      val_accuracy REAL,
      owner_host TEXT NOT NULL DEFAULT '',
      owner_boot TEXT NOT NULL DEFAULT '',
      owner_pid INTEGER NOT NULL DEFAULT 0,
      owner_start INTEGER NOT NULL DEFAULT 0,
      heartbeat_at REAL)SQL";

/// CREATE TABLE `name` with an integer id and `columns`; `id_rule` follows PRIMARY KEY.
std::string createTable(const std::string& name, const char* id_rule, const char* columns) {
  return "CREATE TABLE " + name + " (id INTEGER PRIMARY KEY" + id_rule + "," + columns + ");";
}

void createVersion1(SQLite::Database& db) {
  db.exec(createTable("experiments", "", kExperimentColumns));
  db.exec(createTable("runs", "", kRunColumns));
  db.exec(R"SQL(
    CREATE INDEX runs_by_experiment ON runs(experiment_id);
    CREATE INDEX runs_by_status ON runs(status);
    CREATE INDEX runs_by_dataset ON runs(dataset);
    CREATE TABLE evals (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      step INTEGER NOT NULL,
      samples_seen INTEGER NOT NULL,
      wall_ms REAL NOT NULL,
      loss REAL,
      accuracy REAL);
    CREATE INDEX evals_by_run ON evals(run_id, step);
    CREATE TABLE events (
      id INTEGER PRIMARY KEY,
      experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
      arm TEXT NOT NULL DEFAULT '',
      samples_seen INTEGER NOT NULL DEFAULT 0,
      wall_ms REAL NOT NULL DEFAULT 0,
      kind TEXT NOT NULL,
      message TEXT NOT NULL DEFAULT '');
    CREATE INDEX events_by_experiment ON events(experiment_id, id);
    CREATE TABLE tags (
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      tag TEXT NOT NULL,
      PRIMARY KEY (run_id, tag)) WITHOUT ROWID;
    CREATE INDEX tags_by_tag ON tags(tag);
    CREATE TABLE notes (
      run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
      text TEXT NOT NULL,
      updated_at TEXT NOT NULL);
  )SQL");
  db.exec(stepMetricsTable());
}

/// Rebuilds `table` with `id INTEGER PRIMARY KEY AUTOINCREMENT`, keeping its rows and ids.
/// Needs foreign keys off (the old table is dropped under its children, which then refer to
/// the new one by name) and an open transaction.
void rebuildWithAutoincrement(SQLite::Database& db, const std::string& table, const char* columns) {
  const std::string fresh = table + "_v2";
  db.exec(createTable(fresh, " AUTOINCREMENT", columns));
  db.exec("INSERT INTO " + fresh + " SELECT * FROM " + table);
  db.exec("DROP TABLE " + table);
  db.exec("ALTER TABLE " + fresh + " RENAME TO " + table);
}

/// Version 2: run and experiment ids are never reused after a delete (AUTOINCREMENT), so a
/// deleted run's id cannot reappear on a new run in exports and notes.
void autoincrementIds(SQLite::Database& db) {
  rebuildWithAutoincrement(db, "experiments", kExperimentColumns);
  rebuildWithAutoincrement(db, "runs", kRunColumns);
  db.exec(R"SQL(
    CREATE INDEX runs_by_experiment ON runs(experiment_id);
    CREATE INDEX runs_by_status ON runs(status);
    CREATE INDEX runs_by_dataset ON runs(dataset);
  )SQL");
}

/// Adds the step columns of `version` (old rows read them as NULL: NaN, or false for flags).
void addStepColumns(SQLite::Database& db, int version) {
  addFieldColumns(db, "step_metrics", stepFields(), version);
}

/// Version 3: the applied (clipped) gradient norm, the noise-probe flag and the gradient
/// equivalence check of each step.
void addStepColumnsOfVersion3(SQLite::Database& db) { addStepColumns(db, 3); }

/// Version 4: the detrended loss variance of each step, and the fixed-weight variance
/// probes (one row per probe, under the run of the arm whose weights were probed).
void addVarianceProbes(SQLite::Database& db) {
  addStepColumns(db, 4);
  db.exec(R"SQL(
    CREATE TABLE probes (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      step INTEGER NOT NULL,
      samples_seen INTEGER NOT NULL,
      wall_ms REAL NOT NULL,
      micro_batch INTEGER NOT NULL,
      accum INTEGER NOT NULL,
      repeats INTEGER NOT NULL,
      var_micro REAL,
      var_window REAL,
      ratio REAL,
      ci_low REAL,
      ci_high REAL,
      theory REAL,
      batch_dependent INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX probes_by_run ON probes(run_id, step);
  )SQL");
}

/// Version 5: the peak tensor bytes of each step's window (old rows read -1: not measured).
void addStepColumnsOfVersion5(SQLite::Database& db) { addStepColumns(db, 5); }

/// Version 6: sweeps, each a grid of points; a point's run is a normal stored run (its row
/// is kept when the run is deleted, which leaves the point without a run).
void addSweeps(SQLite::Database& db) {
  db.exec(R"SQL(
    CREATE TABLE sweeps (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL DEFAULT '',
      created_at TEXT NOT NULL,
      spec_json TEXT NOT NULL);
    CREATE TABLE sweep_points (
      sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      micro_batch INTEGER NOT NULL,
      accum INTEGER NOT NULL,
      lr REAL,
      run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running',
        'reached', 'missed', 'diverged', 'failed', 'interrupted')),
      result_json TEXT NOT NULL DEFAULT '{}',
      PRIMARY KEY (sweep_id, idx)) WITHOUT ROWID;
  )SQL");
}

/// Version 7: lesson results, one row per attempt at a lesson, with its verdict (the runs it
/// trained are normal stored runs, listed by id in run_ids_json).
void addLessonResults(SQLite::Database& db) {
  db.exec(R"SQL(
    CREATE TABLE lesson_results (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      lesson_id TEXT NOT NULL,
      title TEXT NOT NULL DEFAULT '',
      finished_at TEXT NOT NULL,
      prediction TEXT NOT NULL DEFAULT '',
      prediction_correct INTEGER,
      all_hold INTEGER NOT NULL,
      verdict_json TEXT NOT NULL,
      run_ids_json TEXT NOT NULL DEFAULT '[]');
    CREATE INDEX lesson_results_by_lesson ON lesson_results(lesson_id, id);
  )SQL");
}

/// Version 8: the all-reduce time of a data-parallel window (StepRecord::allreduce_ms).
void addStepColumnsOfVersion8(SQLite::Database& db) { addStepColumns(db, 8); }

/// Version 9: the float64 repeat of a float32 gradient check above rounding
/// (StepRecord::grad_equiv_f64).
void addStepColumnsOfVersion9(SQLite::Database& db) { addStepColumns(db, 9); }

/// Version 10: a probe's pool (0: every batch its own forward, as all probes of older
/// files) and the histogram of its two sets of mean losses as JSON (NULL: none).
void addProbeHistograms(SQLite::Database& db) {
  db.exec(R"SQL(
    ALTER TABLE probes ADD COLUMN pool INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE probes ADD COLUMN histogram_json TEXT;
  )SQL");
}

/// Version 11: the text runs' tokens per second of each step (StepRecord::tokens_per_s) and
/// the line each arm writes at an evaluation (NULL: none, as for every older evaluation).
void addTextColumns(SQLite::Database& db) {
  addStepColumns(db, 11);
  db.exec("ALTER TABLE evals ADD COLUMN text_sample TEXT");
}

/// From version 12 on, a version's migration adds the columns that the record tables
/// (records/record_fields.h) gained in it: a new field is one line in its table.
void addRecordColumns(SQLite::Database& db, int version) {
  addFieldColumns(db, "step_metrics", stepFields(), version);
  addFieldColumns(db, "evals", evalFields(), version);
  addFieldColumns(db, "probes", probeFields(), version);
}

/// Version 12: the excess kurtosis a probe's interval assumed (ProbeRecord::kurtosis).
void addColumnsOfVersion12(SQLite::Database& db) { addRecordColumns(db, 12); }

/// Version 13: each run's stable identity, kept when it is merged into another store
/// (store_merge.cpp). New runs draw 128 random bits (the trigger); runs of older files get a
/// hash of their id and what made them (an older file upgraded twice, once in place and once
/// in a merge's copy, gives each run the same identity; the id keeps two runs of one file
/// with the same content apart).
void addRunIdentity(SQLite::Database& db) {
  db.exec(R"SQL(
    ALTER TABLE runs ADD COLUMN uid TEXT;
    CREATE TRIGGER runs_uid AFTER INSERT ON runs FOR EACH ROW WHEN NEW.uid IS NULL
      BEGIN UPDATE runs SET uid = lower(hex(randomblob(16))) WHERE id = NEW.id; END;
  )SQL");
  SQLite::Statement runs(db, R"SQL(
    SELECT r.id, e.created_at, r.arm, r.started_at, r.config_json, r.owner_host, r.owner_boot,
           r.owner_pid, r.owner_start
    FROM runs r LEFT JOIN experiments e ON e.id = r.experiment_id)SQL");
  SQLite::Statement set(db, "UPDATE runs SET uid = ? WHERE id = ?");
  while (runs.executeStep()) {
    std::string content;
    for (int c = 0; c < runs.getColumnCount(); ++c)
      content += runs.getColumn(c).getString() + '\x1f';
    set.bind(1, contentUid(content));
    set.bind(2, runs.getColumn(0).getInt64());
    set.exec();
    set.reset();
  }
  db.exec("CREATE UNIQUE INDEX runs_by_uid ON runs(uid)");
}

/// Version 14: each run's final weights as a model to take away (ArmWeights: a TorchScript
/// archive in `data`, its size in `bytes`), at most one per run, gone with the run.
void addRunWeights(SQLite::Database& db) {
  db.exec(R"SQL(
    CREATE TABLE run_weights (
      run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
      format TEXT NOT NULL,
      bytes INTEGER NOT NULL,
      data BLOB NOT NULL);
  )SQL");
}

/// kMigrations[v] takes a file from version v to v + 1.
const std::vector<std::function<void(SQLite::Database&)>> kMigrations = {
    createVersion1,           autoincrementIds,
    addStepColumnsOfVersion3, addVarianceProbes,
    addStepColumnsOfVersion5, addSweeps,
    addLessonResults,         addStepColumnsOfVersion8,
    addStepColumnsOfVersion9, addProbeHistograms,
    addTextColumns,           addColumnsOfVersion12,
    addRunIdentity,           addRunWeights};
static_assert(kSchemaVersion == 14, "add the migration to kMigrations");

/// Turns foreign-key enforcement off for its lifetime (outside any transaction, where
/// SQLite ignores the pragma) and back on afterwards.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(SQLite::Database& db) : db_(db) { db_.exec("PRAGMA foreign_keys = OFF"); }
  ~ForeignKeysOff() {
    try {
      db_.exec("PRAGMA foreign_keys = ON");
    } catch (...) {
      // Leaving enforcement off only skips the cascades of this connection's deletes.
    }
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  SQLite::Database& db_;
};

}  // namespace

void migrateSchema(SQLite::Database& db, int to_version) {
  if (db.execAndGet("PRAGMA user_version").getInt() >= to_version) return;
  ForeignKeysOff unchecked(db);
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  // Another process may have migrated between the check above and taking the write lock.
  const int from = db.execAndGet("PRAGMA user_version").getInt();
  if (from >= to_version) return;
  for (int v = from; v < to_version; ++v) kMigrations.at(v)(db);
  {
    // Rebuilt tables must still match their children's references.
    SQLite::Statement broken(db, "PRAGMA foreign_key_check");
    if (broken.executeStep()) {
      throw InputError(db.getFilename() + " cannot be upgraded to schema version " +
                       std::to_string(to_version) + ": a row of " +
                       broken.getColumn(0).getString() +
                       " has lost its parent (the file is "
                       "left as it was); check it with `sqlite3 FILE 'PRAGMA foreign_key_check'` "
                       "or choose another file with --db");
    }
  }
  db.exec("PRAGMA user_version = " + std::to_string(to_version));
  tx.commit();
}

}  // namespace accumlab::store
