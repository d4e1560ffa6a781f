// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_grid.h"

namespace accumlab {

class RunStore;

/// A stored sweep's points that are still to train, and what they train with.
struct SweepPlan {
  int64_t sweep_id = 0;
  ExperimentConfig base;  ///< every point's config but its m, K and LR
  SweepTarget target;
  std::vector<SweepPoint> points;  ///< in grid order
};

/// Stores a new sweep of `points` (named after base.name) and returns its plan.
SweepPlan createSweep(RunStore& store, const ExperimentConfig& base, const SweepTarget& target,
                      int jobs, const std::vector<SweepPoint>& points);
/// The points of stored sweep `sweep_id` that have not ended. Throws InputError when there is
/// no such sweep or it stored no config.
SweepPlan resumeSweep(RunStore& store, int64_t sweep_id);

/// How a sweep ended.
struct SweepOutcome {
  size_t done = 0;          ///< points that ended
  size_t total = 0;         ///< points it was to train
  bool stopped = false;     ///< a stop request or a bad input ended it early
  bool failed = false;      ///< a point failed
  std::string input_error;  ///< a point's bad-input sentence, which stopped the sweep
};

/// What a SweepRunner reports, in this order, on the thread that calls SweepRunner::run():
/// sweepStarted; pointStarted and pointFinished for each point (several may run at once);
/// sweepFinished.
class SweepObserver {
 public:
  virtual ~SweepObserver() = default;
  /// The plan's points are about to train.
  virtual void sweepStarted(const SweepPlan& plan) = 0;
  /// `point` (status kRunning) has started.
  virtual void pointStarted(const SweepPoint& point) = 0;
  /// `point` ended with its stored outcome after `seconds`; `done` of `total` have ended.
  virtual void pointFinished(const SweepPoint& point, size_t done, size_t total,
                             double seconds) = 0;
  /// Every started point has ended.
  virtual void sweepFinished(const SweepOutcome& outcome) = 0;
};

/// How a SweepRunner starts its points.
struct SweepRunnerOptions {
  /// accumlab-cli or accumlab-engine: each point is `PROGRAM sweep-point JOB --outcome FILE`,
  /// its job and outcome files typed (accumlab/sweep_job.h), its run a normal stored run.
  std::string program;
  std::string store_path;  ///< the run database the sweep is stored in
  int jobs = 1;            ///< points trained at once
};

/// Trains a sweep's points, each in a child process of its own (`jobs` at once), and stores
/// each point's outcome as it ends (ARCHITECTURE.md, "One path for a run's records"). The
/// children lead process groups of their own: a Ctrl-C in the terminal reaches only the
/// front end, which asks through requestStop(). A point that exits 2 (bad input: an unknown
/// dataset, a model that does not fit the data) stops the sweep, as every point would fail
/// the same way.
///
/// Threads: run() on one thread, which owns the children and its store connection;
/// requestStop() from any thread or a signal handler.
class SweepRunner {
 public:
  SweepRunner(SweepPlan plan, SweepRunnerOptions options);

  /// Trains the plan's points, reporting to `observer`. Throws InputError when a child or its
  /// folder cannot be made, and, after sweepFinished, with a point's bad-input sentence.
  SweepOutcome run(SweepObserver& observer);
  /// Asks every running point to stop at its next window boundary (SIGINT, as Ctrl-C asks
  /// `run`; once) and starts no more. Thread-safe and async-signal-safe: it only sets a flag
  /// that run() reads every few milliseconds.
  void requestStop() { stop_requested_.store(true); }
  const SweepPlan& plan() const { return plan_; }

 private:
  SweepPlan plan_;
  SweepRunnerOptions options_;
  std::atomic<bool> stop_requested_{false};  ///< lock-free: set from signal handlers
};

}  // namespace accumlab
