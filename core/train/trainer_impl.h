// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The state of a Trainer's run (private to core/train; its members are in trainer.cpp): the
// loop, the controls, evaluations and probes. Its parts own their own state: each arm
// (ArmRun), the arms on the sample clock with m and K (ArmSchedule), the rounds of parallel
// training (RoundRunner) and the checkpoint (RunCheckpoint).
#include <c10/core/DeviceGuard.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/trainer.h"
#include "train/arm_run.h"
#include "train/probe_schedule.h"
#include "train/round_runner.h"
#include "train/run_checkpoint.h"
#include "train/trainer_control.h"
#include "train/weight_pairing.h"
#include "train/worker_group.h"

namespace accumlab {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Trainer::Impl {
  explicit Impl(ExperimentConfig c) : config(std::move(c)) {}

  ExperimentConfig config;
  TrainerControl control;
  bool ran = false;

  // Set up by run(), used by the training thread only.
  Dataset data;
  torch::Device device{torch::kCPU};
  torch::Dtype dtype = torch::kFloat32;
  /// The arms on the sample clock, and the experiment's m and K.
  ArmSchedule schedule;
  int64_t budget = 0;
  int64_t eval_period = 0;
  ProbeSchedule probes;
  RunCheckpoint checkpoint;
  Clock::time_point start;
  double last_memory_poll_ms = -1e9;
  int64_t last_memory = 0;
  MetricsSink* sink = nullptr;
  /// Accum's weights against big-batch's after each step (record, pairStep).
  WeightPairing pairing;
  RoundRunner rounds{{[this](ArmRun& arm) { trainWindowOrFail(arm); },
                      [this](int64_t at) { return schedule.boundaryOfAll(at); },
                      [this] {
                        return !control.stopRequested() && !control.paused() &&
                               !control.sizeChangeRequested();
                      }}};
  // Data-parallel runs (config.workers > 1).
  std::optional<WorkerGroupOptions> worker_options;
  std::unique_ptr<WorkerGroup> group;
  /// Rank 0 of a data-parallel run, or a run of one process: evaluates, probes and reports.
  bool leads() const { return !group || group->rank() == 0; }
  /// Joins the other ranks (config.workers > 1); the ranks past 0 keep only the accum arm.
  void joinGroup();

  /// Resolves the device and sets `device_guard` (the caller's, on the training thread) to it.
  void setUp(c10::OptionalDeviceGuard& device_guard);
  void announceModel();
  /// Pauses when asked; `at` is the samples seen by the arm about to train.
  void pauseIfRequested(int64_t at);
  void scheduleSizeChange();
  std::optional<int64_t> acceptedSize(std::optional<int64_t> requested, int64_t current,
                                      const char* what);
  void trainWindow(ArmRun& arm);
  /// trainWindow, with a failure made the arm's end (an InputError is thrown on).
  void trainWindowOrFail(ArmRun& arm);
  /// How many arms may train at once now (1: one after another): config.arm_threads, on the
  /// CPU, for arms that draw no random numbers, with no change, pause or checkpoint due
  /// before `horizon`.
  int parallelArms(int64_t horizon);
  /// armsAtOnce for this run's device and this machine's cores.
  int armThreadsAllowed() const;
  /// Tells the sink now, or, while `about` trains in a round, holds it in the arm's outbox.
  void publish(ArmRun* about, std::function<void()> tell);
  void record(ArmRun& arm, StepRecord& rec);
  /// Gives `pairing` accum's or big-batch's weights after the step `rec` records (on the
  /// thread that trained it).
  void pairStep(ArmRun& arm, const StepRecord& rec);
  /// Drops the weights left for a partner arm that has ended (run's thread).
  void forgetUnpaired();
  void finishArm(ArmRun& arm, ArmStatus status, const std::string& message);
  void evaluateArm(ArmRun& arm);
  ArmRun* probedArm();
  void emitEvent(EventKind kind, std::optional<ArmKind> arm, const std::string& message,
                 int64_t samples);
  int64_t memoryNow();
  /// The parts of the run a checkpoint holds.
  RunParts parts() { return {config, schedule, probes}; }
};

}  // namespace accumlab
