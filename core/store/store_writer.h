// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <SQLiteCpp/Statement.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/record_batch.h"
#include "accumlab/run_store.h"
#include "records/record_field.h"
#include "store/connection.h"
#include "store/process_identity.h"

namespace accumlab::store {

/// What a StoreSink hands its writer between two commits.
struct WriteBatch {
  /// The rows; `records.started` creates the experiment and its runs first, and the arms'
  /// summaries (`arm_summaries`, then `finished`'s) are applied after the rows.
  RecordBatch records;
  /// With `records.started`: continue this stored experiment instead (a run resumed from a
  /// checkpoint; its rows after started->resumed_after_ms are dropped, to be redone).
  int64_t resume_experiment = 0;

  bool empty() const { return records.empty(); }
};

/// Writes one experiment's rows through its own connection.
///
/// Threads: lives on, and is used only by, the StoreSink's writer thread (or one benchmark
/// thread); it shares nothing.
class StoreWriter {
 public:
  /// Opens the file and marks runs of dead processes `interrupted`; throws InputError.
  StoreWriter(const std::string& path, const StoreOptions& options);

  /// Writes the batch in one transaction; throws InputError (nothing of it is kept then).
  void write(const WriteBatch& batch);
  /// Marks this experiment's runs that are still `running` as `failed` with `message`.
  void abandonRunning(const std::string& message);

  int64_t experimentId() const { return experiment_id_; }
  std::vector<StoredRun> runs() const;
  const std::string& path() const { return conn_.path(); }

 private:
  void writeTransaction(const WriteBatch& batch, const std::string& doing);
  void createExperiment(const RunInfo& info);
  void resumeExperiment(int64_t experiment_id, const RunInfo& info);
  void insertSteps(const std::vector<StepRecord>& steps);
  void insertEvals(const std::vector<EvalRecord>& evals);
  void insertEvents(const std::vector<EventRecord>& events);
  void insertProbes(const std::vector<ProbeRecord>& probes);
  void finishArm(const ArmSummary& summary);
  void keepWeights(const ArmWeights& weights);
  int64_t runIdOf(ArmKind arm) const;
  /// Inserts with `ins` (insertFieldsSql) each record of a run this writer stores: binds the
  /// run id and the fields, then `rest(run_id, record, next parameter)` binds what follows,
  /// and writes the row. Records of other arms are skipped.
  template <typename R, typename Rest>
  void insertRecords(SQLite::Statement& ins, const std::vector<R>& records,
                     const std::vector<RecordField<R>>& fields, Rest rest);
  SQLite::Statement& statement(std::unique_ptr<SQLite::Statement>& slot, const std::string& sql);

  Connection conn_;
  ProcessIdentity self_;
  int64_t experiment_id_ = 0;
  std::map<ArmKind, int64_t> run_ids_;
  std::vector<StoredRun> runs_;
  // Prepared once, reused for every batch.
  std::unique_ptr<SQLite::Statement> insert_step_, insert_eval_, insert_event_, insert_probe_,
      progress_, eval_progress_, finish_, heartbeat_, weights_;
};

}  // namespace accumlab::store
