// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/arm_stepper.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "accumlab/format_bytes.h"
#include "accumlab/input_error.h"
#include "accumlab/memory_model.h"
#include "accumlab/training_rules.h"
#include "models/model_state.h"
#include "records/record_fields.h"
#include "train/big_batch_check.h"
#include "train/optimizer_factory.h"
#include "train/pitfalls.h"
#include "train/sgd_step.h"
#include "train/state_archive.h"
#include "train/window_plan.h"

namespace accumlab {

namespace {

int64_t largestPiece(const WindowPlan& plan) {
  int64_t largest = 0;
  for (const auto& mb : plan.micro_batches) largest = std::max(largest, mb.size(0));
  return largest;
}

using Clock = std::chrono::steady_clock;

}  // namespace

ArmStepper::ArmStepper(ArmKind kind, std::unique_ptr<Model> model, const Dataset& data,
                       const ExperimentConfig& config, torch::Device device, torch::Dtype dtype,
                       int64_t budget, std::unique_ptr<ArmMemory> memory)
    : kind_(kind),
      memory_(std::move(memory)),
      model_(std::move(model)),
      params_(model_->parameters()),
      data_(data),
      config_(config),
      budget_(budget),
      window_(*model_, data, device, dtype, config.noise_stats),
      stream_(data.trainSize(), config.seed),
      random_(config.seed, device),
      optimizer_(makeOptimizer(config.optimizer, params_, config.optimizer.lr)) {
  if (data.isText()) {
    weigh_ = [&data](const torch::Tensor& rows) { return data.trainWeight(rows); };
  }
  adoptSizes(config.micro_batch, config.accum);
}

void ArmStepper::setSizes(int64_t m, int64_t k) {
  adoptSizes(m, k);
  check_next_window_ = true;
}

void ArmStepper::adoptSizes(int64_t m, int64_t k) {
  // N workers put K·N micro-batches into each accum window; big-batch matches m·K·N.
  k *= config_.workers;
  micro_batch_ = armMicroBatch(kind_, m, k);
  accum_ = armAccum(kind_, m, k);
  const double ratio = kind_ == ArmKind::kNoAccum ? 1.0 : static_cast<double>(k);
  base_lr_ = scaledLearningRate(config_.optimizer, ratio);
  scheduleLr();
}

int64_t ArmStepper::boundaryAtOrAfter(int64_t position) const {
  return windowBoundaryAtOrAfter(stream_.consumed(), position, effectiveBatch(), budget_,
                                 data_.trainSize(), config_.window_policy);
}

void ArmStepper::scheduleLr(int64_t window_micro_batches) {
  const int64_t at = schedulePosition(kind_, stream_.consumed(), scheduler_samples_, micro_batch_,
                                      accum_, window_micro_batches);
  lr_ = scheduledLr(config_.optimizer, base_lr_, at, budget_, data_.trainSize());
  setLearningRate(*optimizer_, lr_);
}

WindowOutcome ArmStepper::step() {
  // Everything this window allocates is the arm's: its plan, batches, activations, gradients
  // and the optimizer state (created lazily at the first step).
  const auto charge = memory_->charge();
  WindowPlan plan =
      planWindow(stream_, micro_batch_, accum_, config_.window_policy, samplesLeft(), weigh_);
  // The peak starts from the bytes alive now, the plan's rows included; the budget applies
  // from here (the rows are taken from the stream, so they are not refused halfway).
  memory_->beginWindow();
  if (data_.isText() && !plan.dropped) {
    for (const auto& rows : plan.micro_batches) {
      counted_tokens_ += data_.trainTokens(rows);
      counted_samples_ += static_cast<double>(rows.size(0));
    }
  }
  if (plan.dropped) {
    WindowOutcome out;
    out.end = WindowEnd::kDropped;
    out.dropped_samples = plan.consumed;
    scheduleLr();  // the schedule runs on samples seen, the dropped ones included
    return out;
  }
  if (group_) {
    // This rank's share of the window; the others train theirs at the same time.
    WindowPlan share = shardOf(plan, group_->rank(), group_->size());
    if (piece_cap_ > 0) share = splitPieces(share, piece_cap_);
    return train(share, false, &plan);
  }
  applyPitfall(kind_, accum_, config_.optimizer.clip_norm, plan);
  const auto planned = static_cast<int64_t>(plan.batches());
  if (kind_ == ArmKind::kPitfallSchedulePerMicro && planned != accum_) {
    scheduleLr(planned);  // a short window: its scheduler stepped fewer times before the update
  }
  // Since memory ran out, micro-batches run in pieces (which also measure a K = 1 arm's noise).
  if (piece_cap_ > 0) plan = splitPieces(plan, piece_cap_);
  bool probe = false;
  if (config_.noise_stats && plan.micro_batches.size() == 1 && !model_->batchDependent() &&
      ++windows_since_probe_ >= kNoiseProbeEvery) {
    windows_since_probe_ = 0;
    plan = splitInHalves(plan);
    probe = plan.micro_batches.size() == 2;
  }
  return train(plan, probe);
}

WindowOutcome ArmStepper::train(const WindowPlan& plan, bool probe, const WindowPlan* whole) {
  const auto t0 = Clock::now();
  WindowOutcome out;
  StepRecord& rec = out.record;
  WindowPlan pieces = plan;
  std::optional<WindowResult> result = runFitting(pieces, out);
  if (!result) return out;
  if (group_) group_->reduceWindow(params_, pieces.micro_batches, pieces.samples, *result);
  const WindowResult& r = *result;
  if (!r.finite) {
    out.end = WindowEnd::kDiverged;
    out.message = "loss became " + std::string(std::isnan(r.loss) ? "NaN" : "infinite") +
                  " at step " + std::to_string(steps_ + 1) +
                  "; lower the learning rate or enable gradient clipping";
    return out;
  }
  // A data-parallel window is checked whole: after the all-reduce .grad holds every rank's
  // share, and every rank plans the same window from one sample order, so rank 0 has all of
  // its micro-batches at hand (gradCheckDue keeps the check to rank 0).
  const bool check = gradCheckDue(whole ? *whole : plan);
  check_next_window_ = false;
  if (check) {
    const auto t_check = Clock::now();
    memory_->pause();  // the check runs the window as one big batch: not this arm's training
    WindowPlan checked = pieces;
    if (whole) checked = piece_cap_ > 0 ? splitPieces(*whole, piece_cap_) : *whole;
    if (const std::optional<double> equiv = checkAgainstBigBatch(checked)) {
      recordGradCheck(checked, *equiv, rec);
    }
    memory_->resume();
    // A measurement, not training: keep it out of the arm's samples/s.
    train_seconds_ -= std::chrono::duration<double>(Clock::now() - t_check).count();
  }
  rec.grad_norm = std::sqrt(r.grad_sq);
  rec.grad_norm_applied = rec.grad_norm;
  rec.lr = lr_;
  if (!sgd_probed_ && config_.optimizer.kind == OptimizerKind::kSgd && !params_.empty() &&
      params_.front().is_cpu()) {
    sgd_probed_ = true;
    memory_->pause();  // the probe's few tensors are not the arm's
    fusedSgdMatchesLibTorch(window_.dtype());
    memory_->resume();
  }
  try {
    if (config_.optimizer.clip_norm > 0) {
      // LibTorch's own clipping (PyTorch's rule: scale by max_norm / (norm + 1e-6) when < 1),
      // so the update is the one a PyTorch user gets.
      const double pre = torch::nn::utils::clip_grad_norm_(params_, config_.optimizer.clip_norm);
      rec.grad_norm_applied = pre * std::min(1.0, config_.optimizer.clip_norm / (pre + 1e-6));
    }
    // SGD on the CPU in one pass over each parameter, LibTorch's bits (train/sgd_step.h).
    if (!fusedSgdStep(*optimizer_)) optimizer_->step();
  } catch (const std::exception& e) {
    // Clipping scales .grad in place and the step updates parameter after parameter: either
    // may have changed some already, so the arm cannot go on.
    if (!isOutOfMemory(e)) throw;
    memory_->afterOutOfMemory();
    out.end = WindowEnd::kOutOfMemory;
    out.message =
        "out of memory in the optimizer step: the weights, gradients and optimizer "
        "state alone do not fit" +
        budgetText();
    return out;
  }
  ++steps_;
  // schedule-per-micro's loop stepped its scheduler once after each micro-batch trained (a
  // probe's halves are one micro-batch).
  const size_t trained = probe ? 1 : plan.shard ? plan.window_batches : plan.batches();
  scheduler_samples_ += static_cast<int64_t>(trained) * micro_batch_ * accum_;
  scheduleLr();
  train_seconds_ += std::chrono::duration<double>(Clock::now() - t0).count();
  rec.peak_tensor_bytes = memory_->endWindow();
  peak_tensor_bytes_ = std::max(peak_tensor_bytes_, rec.peak_tensor_bytes);

  rec.arm = kind_;
  rec.step = steps_;
  rec.samples_seen = stream_.consumed();
  rec.micro_batch = micro_batch_;
  // Pieces cut after an out-of-memory are not micro-batches of the update.
  rec.accum =
      accum_ == 1 ? 1 : static_cast<int64_t>(plan.shard ? plan.window_batches : pieces.batches());
  if (group_) rec.allreduce_ms = group_->lastSeconds() * 1000.0;
  rec.window_samples = plan.samples;
  grad_checks_.add(rec, accum_);  // once the record knows its window
  rec.probe = probe;
  rec.loss = r.loss;
  // A probe's halves are a measurement aid, not micro-batches of the update: the window
  // reports what any K = 1 window reports.
  rec.mb_loss_mean = probe ? r.loss : r.mb_loss_mean;
  rec.mb_loss_var = probe ? 0.0 : r.mb_loss_var;
  rec.samples_per_s = static_cast<double>(stream_.consumed()) / std::max(1e-9, train_seconds_);
  rec.tokens_per_s = rec.samples_per_s * tokensPerSample();
  if (r.has_noise) {
    rec.g_small_sq = r.g_small_sq;
    rec.g_big_sq = r.g_big_sq;
    rec.b_small = r.b_small;
    rec.b_big = r.b_big;
  }
  return out;
}

std::optional<WindowResult> ArmStepper::runFitting(WindowPlan& plan, WindowOutcome& out) {
  const int64_t position = stream_.consumed() - plan.consumed;
  const bool recoverable = memory_->recoverable();
  // A failed attempt has run some forward passes: BatchNorm's running statistics are put
  // back before the window starts over. (Gradients need no saving: run() drops them first, and
  // a backward that fails midway has added to some .grad already, so the window starts
  // over rather than go on from there.)
  std::vector<torch::Tensor> buffers, saved;
  if (recoverable) {
    buffers = model_->buffers();
    for (const auto& b : buffers) saved.push_back(b.clone());
  }
  const int64_t first_m = largestPiece(plan);
  for (;;) {
    // Only a model that draws while training (dropout) needs its stream set; the others leave
    // the process-wide generator alone (other threads' Trainers may be seeding it).
    if (model_->stochastic()) random_.seedWindow(position);
    try {
      return window_.run(plan, config_.noise_stats);
    } catch (const std::exception& e) {
      if (!recoverable || !isOutOfMemory(e)) throw;
    }
    // What the failed attempt held was freed as the exception left run().
    memory_->afterOutOfMemory();
    {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(saved[i]);
    }
    const int64_t largest = largestPiece(plan);
    if (largest <= 1) {
      out.end = WindowEnd::kOutOfMemory;
      out.message =
          "out of memory even with micro-batches of one sample: the weights, "
          "gradients and optimizer state leave no room" +
          budgetText();
      return std::nullopt;
    }
    piece_cap_ = (largest + 1) / 2;
    plan = splitPieces(plan, piece_cap_);
    out.split_message = "out of memory at m=" + std::to_string(first_m) + ": continuing with " +
                        piecesText() + ", the same update in smaller pieces";
  }
}

std::string ArmStepper::piecesText() const {
  const int64_t per_batch = (micro_batch_ + piece_cap_ - 1) / piece_cap_;
  const int64_t count = per_batch * accum_;
  if (micro_batch_ % piece_cap_ == 0)
    return std::to_string(piece_cap_) + "×" + std::to_string(count);
  return std::to_string(count) + " pieces of at most " + std::to_string(piece_cap_) +
         " per window of " + std::to_string(micro_batch_) + "×" + std::to_string(accum_);
}

std::string ArmStepper::budgetText() const {
  if (memory_->budget() <= 0) return "";
  const std::string taken = formatBytes(static_cast<double>(memory_->currentBytes()));
  return " in the memory budget of " + formatBytes(static_cast<double>(memory_->budget())) +
         " (they take " + taken + "); raise the budget well above " + taken +
         " or choose a smaller model";
}

// The gradient check: the accumulated gradient against the same window as one big batch at the
// same weights, at every N-th window and at every irregular one, repeated in float64 when
// float32 rounding cannot explain a difference (a ReLU kink can).

bool ArmStepper::gradCheckDue(const WindowPlan& plan) const {
  // A pitfall arm is checked like accum: the check measures its mistake.
  if (!accumulates(kind_) || config_.grad_check_every <= 0) return false;
  // A data-parallel window is checked on rank 0, which holds the all-reduced gradient and
  // stores the run; the other ranks go on to their next window and wait for it in the next
  // all-reduce, for as long as the check takes and no longer.
  if (group_ && group_->rank() != 0) return false;
  // Every N-th window alone would miss the few windows that differ from the rest, and there
  // accumulation goes wrong if it does (flush-divide-by-K under-scales only the short window
  // at an epoch end). They are rare (about one per epoch), so checking each costs little.
  // Even a window of one micro-batch: its scale can still be wrong (flush-divide-by-K).
  if (irregularWindow(plan)) return true;
  // A regular window of one micro-batch is the big batch itself.
  return plan.micro_batches.size() > 1 && (steps_ + 1) % config_.grad_check_every == 0;
}

bool ArmStepper::irregularWindow(const WindowPlan& plan) const {
  if (check_next_window_ || plan.partial) return true;
  // The window's samples are [end − consumed, end) of the sample stream; it reaches an epoch
  // end when its first and its end lie in different epochs.
  const int64_t epoch = data_.trainSize();
  const int64_t end = stream_.consumed();
  return (end - plan.consumed) / epoch != end / epoch;
}

std::optional<double> ArmStepper::checkAgainstBigBatch(const WindowPlan& plan) {
  KeptTrainingState kept(params_, *model_);
  // The same samples as one batch, from the same random stream.
  if (model_->stochastic()) random_.seedWindow(stream_.consumed() - plan.consumed);
  // The big batch goes through autograd: where the accumulated gradient came from the fused
  // path (train/fused_mlp.h), the check compares two independent computations.
  try {
    window_.run(asOneBatch(plan), false, /*autograd=*/true);
  } catch (const std::exception& e) {
    if (!isOutOfMemory(e)) throw;
    memory_->afterOutOfMemory();
    kept.restore();
    return std::nullopt;
  }
  const double diff = relativeDifference(kept.grads(), gradsOf(params_));
  kept.restore();
  return diff;
}

std::optional<double> ArmStepper::repeatInFloat64(const WindowPlan& plan) {
  KeptTrainingState kept(params_, *model_);
  const torch::Device device = window_.device();
  // .grad must match its parameter's dtype: the gradients go before each change of dtype.
  const auto narrow = [&] {
    dropGrads(params_);
    model_->to(device, window_.dtype());
    kept.restore();
  };
  std::optional<double> diff;
  try {
    dropGrads(params_);
    model_->to(device, torch::kFloat64);
    GradWindow wide(*model_, data_, device, torch::kFloat64, false);
    const int64_t position = stream_.consumed() - plan.consumed;
    if (model_->stochastic()) random_.seedWindow(position);
    wide.run(plan, false);
    const std::vector<torch::Tensor> accumulated = gradsOf(params_);
    if (model_->stochastic()) random_.seedWindow(position);
    wide.run(asOneBatch(plan), false, /*autograd=*/true);
    diff = relativeDifference(accumulated, gradsOf(params_));
  } catch (const std::exception& e) {
    narrow();
    if (!isOutOfMemory(e)) throw;
    memory_->afterOutOfMemory();
    return std::nullopt;
  }
  narrow();
  return diff;
}

void ArmStepper::recordGradCheck(const WindowPlan& plan, double equiv, StepRecord& rec) {
  rec.grad_equiv = equiv;
  // Widening a model converts all its buffers, BatchNorm's integer count included; a
  // batch-dependent model differs from its big batch anyway.
  // A pitfall's difference is its mistake, not rounding: no repeat.
  if (kind_ == ArmKind::kAccum && config_.dtype == DType::kFloat32 &&
      equiv > roundingLevel(DType::kFloat32) && !model_->batchDependent()) {
    if (const std::optional<double> wide = repeatInFloat64(plan)) rec.grad_equiv_f64 = *wide;
  }
}

// The stepper's part of the run's checkpoint (core/train/run_checkpoint.cpp writes the rest).

void ArmStepper::save(torch::serialize::OutputArchive& archive, const std::string& prefix) {
  writeModelTensors(archive, prefix, *model_);
  putText(archive, prefix + ".optimizer", optimizerStateBytes(*optimizer_));
  putInt(archive, prefix + ".kind", static_cast<int64_t>(kind_));
  putInt(archive, prefix + ".consumed", stream_.consumed());
  putInt(archive, prefix + ".micro_batch", micro_batch_);
  putInt(archive, prefix + ".accum", accum_);
  putInt(archive, prefix + ".piece_cap", piece_cap_);
  putDouble(archive, prefix + ".base_lr", base_lr_);
  putDouble(archive, prefix + ".lr", lr_);
  putInt(archive, prefix + ".steps", steps_);
  putInt(archive, prefix + ".scheduler_samples", scheduler_samples_);
  putInt(archive, prefix + ".windows_since_probe", windows_since_probe_);
  putDouble(archive, prefix + ".train_seconds", train_seconds_);
  putFields(archive, prefix, grad_checks_, gradCheckFields());
  putInt(archive, prefix + ".peak_tensor_bytes", peak_tensor_bytes_);
}

void ArmStepper::load(torch::serialize::InputArchive& archive, const std::string& prefix,
                      const std::string& path) {
  if (getInt(archive, prefix + ".kind", path) != static_cast<int64_t>(kind_)) {
    throw InputError("checkpoint " + path + " holds other arms than this experiment");
  }
  readModelTensors(archive, prefix, path, *model_);
  {
    // The optimizer state is the arm's tensors, as when its first step created it.
    const auto charge = memory_->charge();
    loadOptimizerStateBytes(*optimizer_, getText(archive, prefix + ".optimizer", path), path);
  }
  stream_.seek(getInt(archive, prefix + ".consumed", path));
  micro_batch_ = getInt(archive, prefix + ".micro_batch", path);
  accum_ = getInt(archive, prefix + ".accum", path);
  piece_cap_ = getInt(archive, prefix + ".piece_cap", path);
  base_lr_ = getDouble(archive, prefix + ".base_lr", path);
  lr_ = getDouble(archive, prefix + ".lr", path);
  setLearningRate(*optimizer_, lr_);
  steps_ = getInt(archive, prefix + ".steps", path);
  // Checkpoints written before schedule-per-micro counted micro-batches hold no count: K× the
  // samples seen, which it was while every micro-batch was full.
  c10::IValue scheduler_samples;
  scheduler_samples_ = archive.try_read(prefix + ".scheduler_samples", scheduler_samples) &&
                               scheduler_samples.isInt()
                           ? scheduler_samples.toInt()
                           : stream_.consumed() * accum_;
  windows_since_probe_ = getInt(archive, prefix + ".windows_since_probe", path);
  train_seconds_ = getDouble(archive, prefix + ".train_seconds", path);
  getFields(archive, prefix, grad_checks_, gradCheckFields(), path, 1);
  peak_tensor_bytes_ = getInt(archive, prefix + ".peak_tensor_bytes", path);
  // A restored state is where a resume would go wrong: the first window after it is checked.
  check_next_window_ = true;
}

}  // namespace accumlab
