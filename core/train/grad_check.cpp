// SPDX-License-Identifier: GPL-3.0-or-later
// The gradient check of an accum arm (ArmStepper::gradCheckDue and what it runs): the
// accumulated gradient against the same window as one big batch at the same weights, at every
// N-th window and at every irregular one, repeated in float64 when float32 rounding cannot
// explain a difference (a ReLU kink can). A data-parallel window is checked whole on rank 0,
// against its all-reduced gradient (docs/data-parallel.md).
#include <cmath>

#include "accumlab/memory_model.h"
#include "train/arm_stepper.h"
#include "train/window_plan.h"

namespace accumlab {

namespace {

/// The window's samples as one batch, normalised by the window's true sample count (so an
/// under-scaled flush-divide-by-K window shows).
WindowPlan asOneBatch(const WindowPlan& plan) {
  WindowPlan big;
  big.micro_batches = {torch::cat(plan.micro_batches)};
  big.weigh = plan.weigh;
  big.weight = plan.weightOf(big.micro_batches.front());
  big.weights = {big.weight};
  big.loss_scales = {1.0 / big.weight};
  big.samples = plan.samples;
  big.consumed = plan.consumed;
  return big;
}

/// |a − b| / |b| over all parameters. (Per tensor, max|Δ| / max|g| blows up where a tensor's
/// per-sample gradients nearly cancel: rounding scales with the summands, not with their
/// small sum. Measured: 2e-5 in float32 on the bias of the default MLP.)
double relativeDifference(const std::vector<torch::Tensor>& a,
                          const std::vector<torch::Tensor>& b) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> diff_norms, ref_norms;
  for (size_t i = 0; i < a.size(); ++i) {
    diff_norms.push_back((a[i] - b[i]).norm());
    ref_norms.push_back(b[i].norm());
  }
  const double ref = torch::stack(ref_norms).norm().item<double>();
  const double delta = torch::stack(diff_norms).norm().item<double>();
  return ref > 0 ? delta / ref : (delta > 0 ? kNaN : 0.0);
}

std::vector<torch::Tensor> gradsOf(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) grads.push_back(p.grad());
  return grads;
}

/// The parameters' .grad and copies of the model's buffers (BatchNorm's running statistics),
/// taken before a measurement runs the window again and put back by restore(). The gradients
/// need no copy: GradWindow::run() drops them before it starts, so these handles stay as they
/// were.
class KeptTrainingState {
 public:
  KeptTrainingState(std::vector<torch::Tensor>& params, Model& model)
      : params_(params), grads_(gradsOf(params)), buffers_(model.buffers()) {
    for (const auto& b : buffers_) saved_.push_back(b.clone());
  }
  const std::vector<torch::Tensor>& grads() const { return grads_; }
  void restore() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) params_[i].mutable_grad() = grads_[i];
    for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].copy_(saved_[i]);
  }

 private:
  std::vector<torch::Tensor>& params_;
  std::vector<torch::Tensor> grads_, buffers_, saved_;
};

void dropGrads(std::vector<torch::Tensor>& params) {
  for (auto& p : params) p.mutable_grad().reset();
}

}  // namespace

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
  try {
    window_.run(asOneBatch(plan), false);
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
    wide.run(asOneBatch(plan), false);
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

}  // namespace accumlab
