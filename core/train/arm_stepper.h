// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/records.h"
#include "data/dataset.h"
#include "data/sample_stream.h"
#include "memory/arm_memory.h"
#include "models/model.h"
#include "train/arm_random.h"
#include "train/grad_window.h"
#include "train/worker_group.h"

namespace accumlab {

/// How one window of an arm ended.
enum class WindowEnd {
  kStepped,      ///< the optimizer took a step
  kDropped,      ///< a partial window discarded at the epoch end (policy drop)
  kDiverged,     ///< a loss was NaN or infinite; no step was taken
  kOutOfMemory,  ///< even micro-batches of one sample do not fit; no step was taken
};

/// What one window of one arm did. `record` holds what the stepper measured: step, samples,
/// window sizes, losses, gradient norms, LR and the raw micro-batch gradient norms; a
/// StepRecorder fills in the derived statistics, the Trainer the clock and memory.
struct WindowOutcome {
  WindowEnd end = WindowEnd::kStepped;
  StepRecord record;
  int64_t dropped_samples = 0;  ///< kDropped: samples discarded
  std::string message;          ///< kDiverged, kOutOfMemory: a sentence for people
  /// Set when the window ran out of memory and went on in smaller pieces: a sentence such as
  /// "out of memory at m=64: continuing with 32×16".
  std::string split_message;
};

/// One arm's training step (docs/accumulation.md): plan the window → forward/backward per
/// micro-batch → clip → optimizer step → LR schedule. Owns the arm's model replica, its
/// optimizer, its sample stream and its random numbers (ArmRandom), so no arm's randomness
/// depends on another's. Measures the peak tensor memory of each window with `memory`; the
/// caller charges the model's and the stepper's construction to it (ArmMemory::charge()).
/// Used on the training thread only.
class ArmStepper {
 public:
  ArmStepper(ArmKind kind, std::unique_ptr<Model> model, const Dataset& data,
             const ExperimentConfig& config, torch::Device device, torch::Dtype dtype,
             int64_t budget, std::unique_ptr<ArmMemory> memory);
  ArmStepper(const ArmStepper&) = delete;
  ArmStepper& operator=(const ArmStepper&) = delete;

  /// Trains this (accum) arm data-parallel with the other ranks of `group`: each window is
  /// planned whole (m·K·N samples), this rank trains its share (shardOf) with no
  /// communication, and one all-reduce sums the gradients, the sample count and the window's
  /// statistics, so every rank takes the same step. Call before the first step().
  void shareWith(WorkerGroup& group) { group_ = &group; }
  /// Adopts the experiment's m and K mid-run (this arm derives its own micro-batch, K and LR
  /// from them). Optimizer state (momentum, Adam moments) is kept. The next window is
  /// gradient-checked whatever its number.
  void setSizes(int64_t m, int64_t k);
  /// Trains the next window. Requires samplesLeft() > 0.
  WindowOutcome step();

  /// The sample position of this arm's first window boundary at or after `position`, under
  /// its current sizes, the window policy, epoch ends and the budget. Pure arithmetic.
  int64_t boundaryAtOrAfter(int64_t position) const;

  ArmKind kind() const { return kind_; }
  Model& model() { return *model_; }
  const std::vector<torch::Tensor>& parameters() const { return params_; }
  int64_t samplesSeen() const { return stream_.consumed(); }
  int64_t samplesLeft() const { return budget_ - stream_.consumed(); }
  int64_t steps() const { return steps_; }
  int64_t microBatch() const { return micro_batch_; }
  /// The largest piece a micro-batch is trained in since memory ran out (0: whole).
  int64_t pieceCap() const { return piece_cap_; }
  int64_t accum() const { return accum_; }
  /// m·K of this arm: the samples of one full window.
  int64_t effectiveBatch() const { return micro_batch_ * accum_; }
  /// The LR of the next step.
  double lr() const { return lr_; }
  /// Seconds spent training this arm's windows.
  double trainSeconds() const { return train_seconds_; }
  /// Text: target tokens per sequence of the windows this process trained (so that a
  /// resumed run's throughput needs no new checkpoint field); NaN for other data.
  double tokensPerSample() const {
    return counted_samples_ > 0 ? counted_tokens_ / counted_samples_ : kNaN;
  }
  /// The gradient checks so far: count, kinks and largest differences.
  const GradCheckTally& gradChecks() const { return grad_checks_; }
  /// The largest peak tensor bytes of a window so far; -1 before the first or unmeasured.
  int64_t peakTensorBytes() const { return peak_tensor_bytes_; }
  /// Data-parallel: seconds spent in all-reduces so far; NaN for an arm of one process.
  double allReduceSeconds() const { return group_ ? group_->totalSeconds() : kNaN; }
  /// This arm's tensor memory (to charge allocations made for the arm outside step()).
  ArmMemory& memory() { return *memory_; }

  /// Writes everything the next windows depend on (weights, buffers, optimizer state, sample
  /// position, sizes, LR, counters) under keys starting with `prefix`.
  void save(torch::serialize::OutputArchive& archive, const std::string& prefix);
  /// Restores what save() wrote into this stepper, built from the same config; throws
  /// InputError naming `path` when the archive holds another model. The next window is
  /// gradient-checked whatever its number.
  void load(torch::serialize::InputArchive& archive, const std::string& prefix,
            const std::string& path);

 private:
  /// Trains `plan`: the window, or in a data-parallel run this rank's share of `whole`, the
  /// window the gradient check compares.
  WindowOutcome train(const WindowPlan& plan, bool probe, const WindowPlan* whole = nullptr);
  /// Runs the window; when memory runs out, starts it over in halves of its largest piece
  /// (lowering piece_cap_) until it fits or pieces of one sample do not.
  std::optional<WindowResult> runFitting(WindowPlan& plan, WindowOutcome& out);
  /// "32×16": the pieces of a window under piece_cap_.
  std::string piecesText() const;
  /// " in the memory budget of 200.0 MiB (they take 190.3 MiB)", or "" without a budget.
  std::string budgetText() const;
  /// Sets the LR the schedule gives at this arm's position for the update of a window of
  /// `window_micro_batches` (schedulePosition).
  void scheduleLr(int64_t window_micro_batches);
  /// The LR for the next window, a full one.
  void scheduleLr() { scheduleLr(accum_); }
  /// Derives this arm's micro-batch, K and LR from the experiment's m and K.
  void adoptSizes(int64_t m, int64_t k);
  /// Whether `plan` (just taken from the stream; a data-parallel run's whole window) is
  /// gradient-checked: every grad_check_every-th window, and every irregular one
  /// (irregularWindow); in a data-parallel run on rank 0 only.
  bool gradCheckDue(const WindowPlan& plan) const;
  /// A window where accumulation is most likely to go wrong: short (an epoch end under a
  /// flush policy, or the end of the budget), reaching an epoch end (stream: its samples come
  /// from two shuffles), or the first after a change of m or K or after a resume.
  bool irregularWindow(const WindowPlan& plan) const;
  /// The accumulated gradient (in .grad) against the window's gradient as one big batch at
  /// the same weights; leaves .grad, buffers and random draws as they were. Empty when the
  /// big batch does not fit in memory.
  std::optional<double> checkAgainstBigBatch(const WindowPlan& plan);
  /// checkAgainstBigBatch on a float64 copy of the weights (the parameters are widened in
  /// place and narrowed back, which float32 → float64 → float32 does exactly); leaves .grad,
  /// buffers and random draws as they were. Empty when it does not fit in memory.
  std::optional<double> repeatInFloat64(const WindowPlan& plan);
  /// Records one gradient check in `rec` and the arm's tallies; repeats one above float32
  /// rounding in float64 to tell a kink from a real difference.
  void recordGradCheck(const WindowPlan& plan, double equiv, StepRecord& rec);

  ArmKind kind_;
  std::unique_ptr<ArmMemory> memory_;  // first: the arm's tensors are counted until they go
  std::unique_ptr<Model> model_;
  std::vector<torch::Tensor> params_;
  const Dataset& data_;
  const ExperimentConfig& config_;
  int64_t budget_;
  GradWindow window_;
  SampleStream stream_;
  RowWeight weigh_;  ///< text: a window's loss terms are its tokens; else empty (rows)
  ArmRandom random_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  int64_t micro_batch_ = 0;
  int64_t accum_ = 0;
  int64_t piece_cap_ = 0;  ///< 0: micro-batches run whole
  double base_lr_ = 0;     ///< LR after the scaling rule, before the schedule
  double lr_ = 0;
  int64_t steps_ = 0;
  /// schedule-per-micro: where its scheduler stands after the windows trained, in samples
  /// (m·K for each micro-batch trained: schedulePosition); unused by the other arms.
  int64_t scheduler_samples_ = 0;
  int64_t windows_since_probe_ = 0;  ///< K = 1 arms: windows since the last noise probe
  /// The next window follows a change of m or K or a resume: it is checked (irregularWindow).
  /// Not saved: load() sets it.
  bool check_next_window_ = false;
  /// Whether the fused SGD step's probe has run (outside a window's measured memory).
  bool sgd_probed_ = false;
  double train_seconds_ = 0;
  double counted_tokens_ = 0;   ///< text: target tokens of the windows trained here
  double counted_samples_ = 0;  ///< and their samples
  GradCheckTally grad_checks_;
  int64_t peak_tensor_bytes_ = -1;
  WorkerGroup* group_ = nullptr;  ///< data-parallel accum arm: the other ranks
};

}  // namespace accumlab
