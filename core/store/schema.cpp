#include "store/schema.h"

#include <SQLiteCpp/Transaction.h>

#include <functional>
#include <string>
#include <vector>

#include "store/step_columns.h"

namespace accumlab::store {

namespace {

const char* sqlType(const StepColumn& c) { return c.real ? "REAL" : "INTEGER"; }

/// The step_metrics table as version 1 made it; later columns come from migrations.
std::string stepMetricsTable() {
  std::string sql =
      "CREATE TABLE step_metrics ("
      " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE";
  for (const StepColumn& c : stepColumns()) {
    if (c.since == 1) sql += std::string(", ") + c.name + " " + sqlType(c);
  }
  // (run_id, step) is the key: one run's series is one contiguous range of the b-tree,
  // which is what makes loading a run fast on a file of millions of rows.
  sql += ", PRIMARY KEY (run_id, step)) WITHOUT ROWID;";
  return sql;
}

void createVersion1(SQLite::Database& db) {
  db.exec(R"SQL(
    CREATE TABLE experiments (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL DEFAULT '',
      created_at TEXT NOT NULL,
      device TEXT NOT NULL DEFAULT '',
      dataset_description TEXT NOT NULL DEFAULT '',
      model_description TEXT NOT NULL DEFAULT '',
      train_samples INTEGER NOT NULL DEFAULT 0,
      val_samples INTEGER NOT NULL DEFAULT 0,
      budget_samples INTEGER NOT NULL DEFAULT 0,
      parameters INTEGER NOT NULL DEFAULT 0,
      class_names_json TEXT NOT NULL DEFAULT '[]');
    CREATE TABLE runs (
      id INTEGER PRIMARY KEY,
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
      heartbeat_at REAL);
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

/// Adds the step columns of `version` (old rows read them as NULL: NaN, or false for flags).
void addStepColumns(SQLite::Database& db, int version) {
  for (const StepColumn& c : stepColumns()) {
    if (c.since != version) continue;
    db.exec(std::string("ALTER TABLE step_metrics ADD COLUMN ") + c.name + " " + sqlType(c) +
            (c.flag ? " NOT NULL DEFAULT 0" : ""));
  }
}

/// Version 2: the applied (clipped) gradient norm and the noise-probe flag of each step.
void migrateToVersion2(SQLite::Database& db) { addStepColumns(db, 2); }

/// kMigrations[v] takes a file from version v to v + 1.
const std::vector<std::function<void(SQLite::Database&)>> kMigrations = {createVersion1,
                                                                          migrateToVersion2};

}  // namespace

void migrateSchema(SQLite::Database& db) {
  static_assert(kSchemaVersion >= 1);
  if (db.execAndGet("PRAGMA user_version").getInt() >= kSchemaVersion) return;
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  // Another process may have migrated between the check above and taking the write lock.
  const int from = db.execAndGet("PRAGMA user_version").getInt();
  for (int v = from; v < kSchemaVersion; ++v) kMigrations.at(v)(db);
  if (from < kSchemaVersion) db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  tx.commit();
}

}  // namespace accumlab::store
