// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_spec.h"

namespace accumlab {

struct SweepPlan;

/// One point of a sweep as the process that trains it gets it: a file written by the sweep
/// (SweepRunner, or a scheduler's job script) and read by `accumlab-cli sweep-point`.
/// JSON: `{"format": "accumlab-sweep-job", "version": 1, "sweep", "point": {"index",
/// "micro_batch", "accum", "lr"}, "config", "target", "db"}`; the names are an interface.
struct SweepJob {
  int64_t sweep_id = 0;     ///< the stored sweep it belongs to (0: none yet)
  SweepPoint point;         ///< its index, sizes and LR
  ExperimentConfig config;  ///< the whole config it trains: the point's m, K, LR and name
  SweepTarget target;       ///< where its run stops
  std::string store_path;   ///< the store its run goes to
};

/// What became of a SweepJob, written by the process that trained it.
/// JSON: `{"format": "accumlab-sweep-outcome", "version": 1, "run_id", "bad_input",
/// "error"}`.
struct SweepJobOutcome {
  int64_t run_id = 0;      ///< the stored run of the point's one arm; 0 when none was stored
  bool bad_input = false;  ///< its input was bad: every point of the sweep would fail so
  std::string error;       ///< one sentence when it could not train or store
};

/// The job of `point` of `plan`, its run named after the sweep and the point.
SweepJob makeSweepJob(const SweepPlan& plan, const SweepPoint& point,
                      const std::string& store_path);
/// The job as its file's JSON text.
std::string sweepJobToJson(const SweepJob& job);
/// Reads a job file; throws InputError naming `path` when it cannot be read, is not a job of
/// this version, or its config is invalid.
SweepJob readSweepJob(const std::string& path);

/// The outcome as its file's JSON text.
std::string sweepJobOutcomeToJson(const SweepJobOutcome& outcome);
/// Reads an outcome file; nullopt when there is none or it is not a whole outcome (the
/// process died before it wrote one).
std::optional<SweepJobOutcome> readSweepJobOutcome(const std::string& path);

}  // namespace accumlab
