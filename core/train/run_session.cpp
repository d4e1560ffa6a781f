// SPDX-License-Identifier: GPL-3.0-or-later
// One run, assembled once for every front end: trainer, store, checkpoints, target stop,
// data-parallel ranks and their fan-out (ARCHITECTURE.md, "Runners").
#include "accumlab/run_session.h"

#include <unistd.h>

#include "accumlab/checkpoint_path.h"
#include "accumlab/input_error.h"
#include "accumlab/local_workers.h"
#include "accumlab/metrics_sink.h"
#include "accumlab/run_store.h"
#include "accumlab/target_stop.h"

namespace accumlab {

RunSession::RunSession(ExperimentConfig config, RunSessionOptions options)
    : config_(std::move(config)), options_(std::move(options)) {
  const std::string& db = options_.store_path;
  std::string resume_file;
  if (options_.resume_experiment > 0) {
    if (db.empty()) throw InputError("a run is resumed from its store: no run database is open");
    resume_file = checkpointPath(db, options_.resume_experiment);
    if (::access(resume_file.c_str(), F_OK) != 0) {
      throw InputError("experiment " + std::to_string(options_.resume_experiment) +
                       " cannot be resumed: it has no checkpoint (" + resume_file + ")");
    }
  }
  // Reading the store behind SQLite's back would drop this process's locks on it.
  if (!db.empty()) RunStore::refuseReadingStore(config_, db);
  trainer_ = std::make_unique<Trainer>(config_);
  if (!resume_file.empty()) trainer_->resumeFrom(resume_file);
  if (!db.empty()) {
    store_ = std::make_unique<StoreSink>(db);
    if (options_.resume_experiment > 0) store_->resumeExperiment(options_.resume_experiment);
    if (options_.checkpoint_every > 0) {
      // Asked on the training thread at the first save, once the store has given the ids.
      StoreSink* sink = store_.get();
      trainer_->checkpointEvery(options_.checkpoint_every, [sink, db, resume_file] {
        return resume_file.empty() ? checkpointPath(db, sink->experimentId()) : resume_file;
      });
    }
  }
  if (options_.target) {
    Trainer* trainer = trainer_.get();
    target_ = std::make_unique<TargetStop>(
        config_.arms.size(), *options_.target,
        [trainer](const std::string& reason) { trainer->requestStop(reason); });
  }
  if (config_.workers > 1) {
    WorkerGroupOptions group;
    if (options_.join) {
      group = *options_.join;
    } else {
      // Ranks 1…N−1 are started once this rank has set up the rendezvous in their private
      // folder (nothing listens on the network).
      workers_ = std::make_unique<LocalWorkers>(options_.worker_program, config_,
                                                options_.worker_timeout_s);
      group.rendezvous_dir = workers_->rendezvousDir();
      group.on_listening = [workers = workers_.get()](int) { workers->start(); };
      group.port = 0;
    }
    group.timeout_s = options_.worker_timeout_s;
    trainer_->joinWorkers(std::move(group));
  }
}

RunSession::~RunSession() = default;

std::vector<StoredRun> RunSession::storedRuns() const {
  return store_ ? store_->runs() : std::vector<StoredRun>{};
}

RunSummary RunSession::run(const std::vector<MetricsSink*>& sinks) {
  std::vector<MetricsSink*> all;
  if (store_) all.push_back(store_.get());
  all.insert(all.end(), sinks.begin(), sinks.end());
  if (target_) all.push_back(target_.get());
  FanOutSink fan(all);
  return trainer_->run(fan);
}

std::vector<std::string> RunSession::finish() {
  if (store_) store_->finish();
  return workers_ ? workers_->wait() : std::vector<std::string>{};
}

}  // namespace accumlab
