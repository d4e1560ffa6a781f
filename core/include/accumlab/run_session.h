// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/records.h"
#include "accumlab/sweep_spec.h"
#include "accumlab/trainer.h"

namespace accumlab {

class LocalWorkers;
class MetricsSink;
class StoreSink;
class TargetStop;
struct StoredRun;

/// How a RunSession keeps, continues, stops and spreads its run.
struct RunSessionOptions {
  /// The run database the run is stored in; empty: nothing is stored.
  std::string store_path;
  /// Continue stored experiment `resume_experiment` from its checkpoint (with a store): the
  /// stored runs are taken over (StoreSink::resumeExperiment), the trainer resumes from
  /// checkpointPath(store_path, resume_experiment).
  int64_t resume_experiment = 0;
  /// Save the whole training state every this many samples beside the store (0: never).
  int64_t checkpoint_every = 0;
  /// Stop once every arm has reached this target (a sweep point, a lesson, --stop-at-loss).
  std::optional<SweepTarget> target;
  /// config.workers > 1 and no `join`: this process is rank 0 and starts ranks 1…N−1 as
  /// this program (accumlab-engine or accumlab-cli), meeting in a private folder.
  std::string worker_program;
  /// Seconds a rank waits for the others (--worker-timeout).
  double worker_timeout_s = WorkerGroupOptions{}.timeout_s;
  /// Join a run whose ranks were started elsewhere (accumlab-cli run --rank R) instead.
  std::optional<WorkerGroupOptions> join;
};

/// One run, assembled the same way for the CLI's `run`, a lesson's jobs and the app
/// (ARCHITECTURE.md, "Runners"): the trainer, the store sink, checkpoints, the target stop,
/// the data-parallel ranks and one fan-out of their sinks, in one order: the store first (its
/// rows exist before a front end shows a record), the front end's sinks, the target stop.
/// Made on one thread; run() and finish() may run on another (the app's training thread);
/// trainer()'s request*() controls are thread-safe.
class RunSession {
 public:
  /// Makes the trainer and, with a store, the store sink and checkpointing; starts no
  /// process yet. Throws InputError with the sentence to show: a config whose dataset or
  /// model is the store file itself, a store that cannot be opened, a missing checkpoint.
  RunSession(ExperimentConfig config, RunSessionOptions options);
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  const ExperimentConfig& config() const { return config_; }
  /// Its controls (requestStop, requestPause, requestMicroBatch…) are thread-safe.
  Trainer& trainer() { return *trainer_; }
  /// The store sink, nullptr when nothing is stored.
  StoreSink* store() const { return store_.get(); }
  /// The stored runs, in arm order (empty before the run starts or without a store).
  std::vector<StoredRun> storedRuns() const;

  /// Trains to the end (or a stop), reporting to the store, then `sinks` in order, then the
  /// target stop. Throws as Trainer::run. Call once.
  RunSummary run(const std::vector<MetricsSink*>& sinks);
  /// After run(): waits until every stored row is committed (throws InputError when storing
  /// failed on the way, naming the file) and for ranks 1…N−1 to exit; returns a sentence for
  /// each rank that did not end well.
  std::vector<std::string> finish();

 private:
  ExperimentConfig config_;
  RunSessionOptions options_;
  std::unique_ptr<Trainer> trainer_;
  std::unique_ptr<StoreSink> store_;
  std::unique_ptr<TargetStop> target_;
  std::unique_ptr<LocalWorkers> workers_;
};

}  // namespace accumlab
