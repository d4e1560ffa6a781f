// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/records.h"
#include "train/arm_schedule.h"
#include "train/probe_schedule.h"

namespace accumlab {

class MetricsSink;

/// What a checkpoint holds of a run, by reference into the Trainer's state.
struct RunParts {
  const ExperimentConfig& config;
  ArmSchedule& schedule;  ///< the arms, each saving its own part, and the sizes
  ProbeSchedule& probes;
};

/// The run's checkpoint and its one format (Trainer::checkpointEvery, Trainer::resumeFrom):
/// when one is due, and the run's clock with the probes', the schedule's and every arm's own
/// part (ProbeSchedule::save, ArmSchedule::save, ArmRun::save), in one torch::serialize archive
/// written aside and renamed.
class RunCheckpoint {
 public:
  /// A checkpoint every `samples` samples, at the path `path_of` gives at the first save.
  void every(int64_t samples, std::function<std::string()> path_of);
  /// The run starts from the checkpoint `path` (load()).
  void resumeFrom(std::string path) { resume_path_ = std::move(path); }

  bool saves() const { return every_ > 0; }
  bool resuming() const { return !resume_path_.empty(); }
  /// The sample position of the next checkpoint (max when none is taken).
  int64_t next() const { return every_ > 0 ? next_ : std::numeric_limits<int64_t>::max(); }
  /// True (and the next one moved on) when one is due with the arm furthest behind at `at`.
  bool dueAt(int64_t at);

  /// Flushes `sink` (every record is durable before the checkpoint that follows it), then
  /// writes the checkpoint; throws InputError naming the file when it cannot.
  void save(const RunParts& parts, double elapsed_ms, MetricsSink& sink);
  /// Restores `parts` from the checkpoint given to resumeFrom(); returns the run's elapsed
  /// milliseconds there. Throws InputError when it is damaged, of another version or of
  /// another experiment.
  double load(RunParts& parts);
  /// Removes the checkpoint file once the run has ended: there is nothing left to resume.
  void discard();

 private:
  int64_t every_ = 0;  ///< 0: none
  std::function<std::string()> path_of_;
  std::string path_;  ///< known from the first save (or the resumed file)
  int64_t next_ = 0;
  std::string resume_path_;
};

}  // namespace accumlab
