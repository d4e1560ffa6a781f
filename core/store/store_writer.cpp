// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/store_writer.h"

#include <SQLiteCpp/Transaction.h>

#include "accumlab/input_error.h"
#include "records/record_fields.h"
#include "store/columns.h"
#include "store/field_rows.h"
#include "store/interrupted_runs.h"
#include "store/store_clock.h"
#include "store/summary_json.h"

namespace accumlab::store {

namespace {

/// Binds `text`, or NULL when it is empty.
void bindTextOrNull(SQLite::Statement& q, int i, const std::string& text) {
  if (text.empty()) {
    q.bind(i);
  } else {
    q.bind(i, text);
  }
}

}  // namespace

StoreWriter::StoreWriter(const std::string& path, const StoreOptions& options)
    : conn_(path, options), self_(ProcessIdentity::current()) {
  if (conn_.readOnly()) {
    throw InputError(path +
                     " is read-only, so the run cannot be stored; make it writable, "
                     "choose another file with --db, or pass --no-store");
  }
  conn_.guarded("checking for interrupted runs", [&] { markInterruptedRuns(conn_.db()); });
}

SQLite::Statement& StoreWriter::statement(std::unique_ptr<SQLite::Statement>& slot,
                                          const std::string& sql) {
  if (!slot) slot = std::make_unique<SQLite::Statement>(conn_.db(), sql);
  return *slot;
}

std::vector<StoredRun> StoreWriter::runs() const { return runs_; }

int64_t StoreWriter::runIdOf(ArmKind arm) const {
  const auto it = run_ids_.find(arm);
  return it == run_ids_.end() ? 0 : it->second;
}

void StoreWriter::write(const WriteBatch& batch) {
  const std::string doing =
      batch.records.started ? "creating the run" : "storing the run's metrics";
  try {
    writeTransaction(batch, doing);
  } catch (...) {
    // The transaction rolled back: forget the ids it would have created.
    if (batch.records.started) {
      experiment_id_ = 0;
      run_ids_.clear();
      runs_.clear();
    }
    throw;
  }
}

void StoreWriter::writeTransaction(const WriteBatch& batch, const std::string& doing) {
  conn_.guarded(doing, [&] {
    SQLite::Transaction tx(conn_.db(), SQLite::TransactionBehavior::IMMEDIATE);
    const RecordBatch& r = batch.records;
    if (r.started && batch.resume_experiment > 0) {
      resumeExperiment(batch.resume_experiment, *r.started);
    } else if (r.started) {
      createExperiment(*r.started);
    }
    insertSteps(r.steps);
    insertEvals(r.evals);
    insertProbes(r.probes);
    insertEvents(r.events);
    for (const ArmSummary& s : r.arm_summaries) finishArm(s);
    // The final summaries supersede the per-arm ones (e.g. equivalence_rel_diff is known
    // only once every arm has ended).
    if (r.finished) {
      for (const ArmSummary& s : r.finished->arms) finishArm(s);
    }
    for (const ArmWeights& w : r.arm_weights) keepWeights(w);
    if (experiment_id_ != 0) {
      auto& hb = statement(heartbeat_,
                           "UPDATE runs SET heartbeat_at = ? WHERE experiment_id = ? AND "
                           "status = 'running'");
      store::execWith(hb, unixSecondsNow(), experiment_id_);
    }
    tx.commit();
  });
}

void StoreWriter::createExperiment(const RunInfo& info) {
  const std::string now = isoUtcNow();
  run_ids_.clear();  // a sink reused for a second run starts a new experiment
  runs_.clear();
  SQLite::Statement exp(conn_.db(),
                        "INSERT INTO experiments (name, created_at, device, dataset_description, "
                        "model_description, train_samples, val_samples, budget_samples, "
                        "parameters, class_names_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  store::execWith(exp, info.config.name, now, info.device, info.dataset, info.model,
                  info.train_samples, info.val_samples, info.budget_samples, info.parameters,
                  nlohmann::json(info.class_names).dump());
  experiment_id_ = conn_.db().getLastInsertRowid();

  const std::string config_json = configToJson(info.config, -1);
  SQLite::Statement run(conn_.db(),
                        "INSERT INTO runs (experiment_id, arm, dataset, model, micro_batch, "
                        "accum, config_json, status, started_at, owner_host, owner_boot, "
                        "owner_pid, owner_start, heartbeat_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?)");
  for (ArmKind arm : info.config.arms) {
    store::execWith(run, experiment_id_, arm, info.config.data, info.config.model,
                    armMicroBatch(arm, info.config.micro_batch, info.config.accum),
                    armAccum(arm, info.config.micro_batch, info.config.accum), config_json, now,
                    self_.host, self_.boot_id, self_.pid, self_.start_ticks, unixSecondsNow());
    const int64_t id = conn_.db().getLastInsertRowid();
    run_ids_[arm] = id;
    runs_.push_back({arm, id});
  }
}

void StoreWriter::resumeExperiment(int64_t experiment_id, const RunInfo& info) {
  run_ids_.clear();
  runs_.clear();
  SQLite::Statement runs(conn_.db(), "SELECT id, arm FROM runs WHERE experiment_id = ?");
  runs.bind(1, experiment_id);
  std::map<ArmKind, int64_t> found;
  while (runs.executeStep())
    found[parseArmKind(runs.getColumn(1).getString())] = runs.getColumn(0).getInt64();
  for (ArmKind arm : info.config.arms) {
    const auto it = found.find(arm);
    if (it == found.end()) {
      throw InputError("experiment " + std::to_string(experiment_id) + " in " + conn_.path() +
                       " has no " + toString(arm) + " run to resume");
    }
    run_ids_[arm] = it->second;
    runs_.push_back({arm, it->second});
  }
  experiment_id_ = experiment_id;
  // What the killed process stored after its last checkpoint is trained again.
  const double after = info.resumed_after_ms;
  for (const char* table : {"step_metrics", "evals", "probes"}) {
    SQLite::Statement drop(conn_.db(), std::string("DELETE FROM ") + table +
                                           " WHERE wall_ms > ? AND run_id IN "
                                           "(SELECT id FROM runs WHERE experiment_id = ?)");
    store::execWith(drop, after, experiment_id);
  }
  SQLite::Statement events(conn_.db(),
                           "DELETE FROM events WHERE experiment_id = ? AND wall_ms > ?");
  store::execWith(events, experiment_id, after);
  SQLite::Statement own(conn_.db(),
                        "UPDATE runs SET status = 'running', ended_at = NULL, owner_host = ?, "
                        "owner_boot = ?, owner_pid = ?, owner_start = ?, heartbeat_at = ? "
                        "WHERE experiment_id = ? AND status IN ('running', 'interrupted')");
  store::bindColumns(own, 1, self_.host, self_.boot_id, self_.pid, self_.start_ticks,
                     unixSecondsNow(), experiment_id);
  own.exec();
}

template <typename R, typename Rest>
void StoreWriter::insertRecords(SQLite::Statement& ins, const std::vector<R>& records,
                                const std::vector<RecordField<R>>& fields, Rest rest) {
  for (const R& r : records) {
    const int64_t run_id = runIdOf(r.arm);
    if (run_id == 0) continue;
    ins.bind(1, run_id);
    rest(run_id, r, bindFields(ins, 2, r, fields));
    ins.exec();
    ins.reset();
  }
}

void StoreWriter::insertSteps(const std::vector<StepRecord>& steps) {
  if (steps.empty()) return;
  // REPLACE: a step stored twice (never expected) keeps the newer values, not an error that
  // would drop the whole batch.
  auto& ins =
      statement(insert_step_, insertFieldsSql("INSERT OR REPLACE", "step_metrics", stepFields()));
  std::map<int64_t, const StepRecord*> last;  // run id → its newest step in this batch
  insertRecords(ins, steps, stepFields(),
                [&](int64_t run_id, const StepRecord& r, int) { last[run_id] = &r; });
  auto& up = statement(progress_,
                       "UPDATE runs SET steps = ?, samples_seen = ?, final_loss = ? "
                       "WHERE id = ? AND status = 'running'");
  for (const auto& [run_id, r] : last) {
    store::execWith(up, r->step, r->samples_seen, r->loss, run_id);
  }
}

void StoreWriter::insertProbes(const std::vector<ProbeRecord>& probes) {
  if (probes.empty()) return;
  auto& ins = statement(insert_probe_,
                        insertFieldsSql("INSERT", "probes", probeFields(), {"histogram_json"}));
  insertRecords(ins, probes, probeFields(), [&](int64_t, const ProbeRecord& p, int i) {
    bindTextOrNull(ins, i,
                   p.histogram.empty() ? std::string() : histogramToJson(p.histogram).dump());
  });
}

void StoreWriter::insertEvals(const std::vector<EvalRecord>& evals) {
  if (evals.empty()) return;
  auto& ins =
      statement(insert_eval_, insertFieldsSql("INSERT", "evals", evalFields(), {"text_sample"}));
  auto& up = statement(eval_progress_,
                       "UPDATE runs SET val_loss = ?, val_accuracy = ? "
                       "WHERE id = ? AND status = 'running'");
  insertRecords(ins, evals, evalFields(), [&](int64_t run_id, const EvalRecord& e, int i) {
    bindTextOrNull(ins, i, e.text_sample);
    store::execWith(up, e.loss, e.accuracy, run_id);
  });
}

void StoreWriter::insertEvents(const std::vector<EventRecord>& events) {
  if (events.empty() || experiment_id_ == 0) return;
  auto& ins = statement(insert_event_,
                        "INSERT INTO events (experiment_id, arm, samples_seen, wall_ms, kind, "
                        "message) VALUES (?, ?, ?, ?, ?, ?)");
  for (const EventRecord& e : events) {
    store::execWith(ins, experiment_id_, armName(e), e.samples_seen, e.wall_ms, e.kind, e.message);
  }
}

void StoreWriter::finishArm(const ArmSummary& s) {
  const int64_t run_id = runIdOf(s.arm);
  if (run_id == 0) return;
  // COALESCE keeps the last stored loss/eval when the summary has none (NaN binds as NULL).
  auto& up = statement(finish_,
                       "UPDATE runs SET status = ?, message = ?, ended_at = COALESCE(ended_at, ?), "
                       "summary_json = ?, steps = ?, samples_seen = ?, "
                       "final_loss = COALESCE(?, final_loss), val_loss = COALESCE(?, val_loss), "
                       "val_accuracy = COALESCE(?, val_accuracy) WHERE id = ?");
  store::execWith(up, s.status, s.message, isoUtcNow(), armSummaryToJson(s).dump(), s.steps,
                  s.samples_seen, s.final_train_loss, s.val_loss, s.val_accuracy, run_id);
}

void StoreWriter::keepWeights(const ArmWeights& w) {
  const int64_t run_id = runIdOf(w.arm);
  if (run_id == 0) return;
  // A resumed run ends again: its weights replace any kept before.
  auto& ins = statement(weights_,
                        "INSERT OR REPLACE INTO run_weights (run_id, format, bytes, data) "
                        "VALUES (?, ?, ?, ?)");
  ins.bind(1, run_id);
  ins.bind(2, w.format);
  ins.bind(3, static_cast<int64_t>(w.data.size()));
  ins.bindNoCopy(4, w.data.data(), static_cast<int>(w.data.size()));
  ins.exec();
  ins.reset();
}

void StoreWriter::abandonRunning(const std::string& message) {
  if (experiment_id_ == 0) return;
  conn_.guarded("closing the run", [&] {
    SQLite::Statement up(conn_.db(),
                         "UPDATE runs SET status = 'failed', message = ?, ended_at = ? "
                         "WHERE experiment_id = ? AND status = 'running'");
    store::execWith(up, message, isoUtcNow(), experiment_id_);
  });
}

}  // namespace accumlab::store
