// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The state of a Trainer's run, shared by the files that make it up (private to core/train):
// trainer.cpp schedules the arms and controls the run, trainer_rounds.cpp trains arms in
// parallel rounds, trainer_arms.cpp makes the arms and summarises them, checkpoint.cpp saves
// and restores the run.
#include <c10/core/DeviceGuard.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/trainer.h"
#include "stats/step_recorder.h"
#include "train/arm_stepper.h"
#include "train/trainer_control.h"
#include "train/weight_pairing.h"
#include "train/worker_group.h"

namespace accumlab {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// "m·K = 64 (m = 8, K = 8)", for the sentences that refuse a size.
inline std::string sizesText(int64_t m, int64_t k) {
  return "m·K = " + std::to_string(m * k) + " (m = " + std::to_string(m) +
         ", K = " + std::to_string(k) + ")";
}

/// One arm of the run: its stepper, its recorder and where it stands. Training thread only.
struct ArmRun {
  ArmRun(std::unique_ptr<ArmStepper> s, const ExperimentConfig& config)
      : stepper(std::move(s)), recorder(config.noise_ema, config.variance_window) {}

  std::unique_ptr<ArmStepper> stepper;
  StepRecorder recorder;
  ArmStatus status = ArmStatus::kRunning;
  std::string message;
  int64_t diverged_at_step = -1;
  int64_t next_eval = 0;  ///< samples seen at which the next evaluation is due
  std::optional<EvalRecord> last_eval;
  double equivalence_rel_diff = kNaN;
  int64_t parted_at_step = -1;   ///< accum and big-batch: see ArmSummary
  bool awaiting_change = false;  ///< a scheduled m/K change has not reached this arm yet
};

/// A change of m and K scheduled for every arm at one sample position.
struct SizeChange {
  int64_t m = 0;
  int64_t k = 0;
  int64_t at = 0;  ///< the first window boundary that every running arm reaches
};

struct Trainer::Impl {
  explicit Impl(ExperimentConfig c) : config(std::move(c)) {}

  ExperimentConfig config;
  TrainerControl control;
  bool ran = false;

  // Set up by run(), used by the training thread only.
  Dataset data;
  torch::Device device{torch::kCPU};
  torch::Dtype dtype = torch::kFloat32;
  std::vector<std::unique_ptr<ArmRun>> arms;
  int64_t budget = 0;
  int64_t eval_period = 0;
  int64_t probe_period = 0;  ///< 0: no variance probe
  int64_t next_probe = 0;    ///< samples seen by the probed arm at which the next is due
  std::optional<ProbeRecord> last_probe;
  int64_t probes = 0;
  std::vector<ProbeRecord> probe_log;  ///< every probe so far, for the pooled estimate
  // Checkpoints (Trainer::checkpointEvery, resumeFrom).
  int64_t checkpoint_every = 0;  ///< 0: none
  std::function<std::string()> checkpoint_path_of;
  std::string checkpoint_path;  ///< known from the first save (or the resumed file)
  int64_t next_checkpoint = 0;
  std::string resume_path;
  double resumed_after_ms = -1;
  int64_t m = 0;  ///< the experiment's current m (arms switch to it at `pending->at`)
  int64_t k = 0;
  std::optional<SizeChange> pending;
  Clock::time_point start;
  double last_memory_poll_ms = -1e9;
  int64_t last_memory = 0;
  MetricsSink* sink = nullptr;
  /// Accum's weights against big-batch's after each step (record, pairStep).
  WeightPairing pairing;
  /// Common windows a parallel round spans: grown or shrunk so that a round takes about
  /// kRoundMs (trainer_rounds.cpp).
  int64_t round_windows = 1;
  // Data-parallel runs (config.workers > 1).
  std::optional<WorkerGroupOptions> worker_options;
  std::unique_ptr<WorkerGroup> group;
  /// Rank 0 of a data-parallel run, or a run of one process: evaluates, probes and reports.
  bool leads() const { return !group || group->rank() == 0; }
  /// Joins the other ranks (config.workers > 1); the ranks past 0 keep only the accum arm.
  void joinGroup();

  /// Resolves the device and sets `device_guard` (the caller's, on the training thread) to it.
  void setUp(c10::OptionalDeviceGuard& device_guard);
  void checkModelFits(Model& model);
  void announceModel();
  ArmRun* nextArm();
  /// Pauses when asked; `at` is the samples seen by the arm about to train.
  void pauseIfRequested(int64_t at);
  void scheduleSizeChange();
  std::optional<int64_t> acceptedSize(std::optional<int64_t> requested, int64_t current,
                                      const char* what);
  void applyDueChange(ArmRun& arm);
  int64_t commonBoundary();
  /// The first position at or after `at` that is a window boundary of every running arm.
  int64_t boundaryOfAll(int64_t at);
  void trainWindow(ArmRun& arm);
  /// trainWindow, with a failure made the arm's end (an InputError is thrown on).
  void trainWindowOrFail(ArmRun& arm);
  /// How many arms may train at once now (1: one after another): config.arm_threads, on the
  /// CPU, for arms that draw no random numbers, with no change, pause or checkpoint due
  /// before `horizon`.
  int parallelArms(int64_t horizon);
  /// armsAtOnce for this run's device and this machine's cores.
  int armThreadsAllowed() const;
  /// The first window boundary of every running arm past the one furthest ahead (or past
  /// their common position): where the shortest round of parallel training ends.
  int64_t roundHorizon();
  /// `horizon` moved on by round_windows − 1 common boundaries, short of a checkpoint due.
  int64_t longerRound(int64_t horizon);
  /// Trains every running arm up to `horizon` on `threads` threads, a window at a time, the
  /// arm furthest behind first; ends early on a stop, pause or change asked for. What each
  /// arm tells the sink is held back and told afterwards on this thread, in the order that
  /// training one window at a time on the sample clock would have told it.
  void trainRound(int64_t horizon, int threads);
  /// Tells the sink now, or holds it back while this thread trains in a round.
  void publish(std::function<void()> tell);
  /// Whether this thread is training an arm in a round.
  static bool inRound();
  void record(ArmRun& arm, StepRecord& rec);
  /// Gives `pairing` accum's or big-batch's weights after the step `rec` records (on the
  /// thread that trained it).
  void pairStep(ArmRun& arm, const StepRecord& rec);
  /// Drops the weights left for a partner arm that has ended (run's thread).
  void forgetUnpaired();
  void finishArm(ArmRun& arm, ArmStatus status, const std::string& message);
  void evaluateArm(ArmRun& arm);
  ArmRun* probedArm();
  void probeArm(ArmRun& arm);
  void emitEvent(EventKind kind, std::optional<ArmKind> arm, const std::string& message,
                 int64_t samples);
  ArmRun* find(ArmKind kind);
  ArmSummary summarize(ArmRun& arm);
  int64_t memoryNow();
  void saveCheckpoint();
  void loadCheckpoint();
};

}  // namespace accumlab
