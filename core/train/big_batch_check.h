// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <vector>

#include "models/model.h"
#include "train/window_plan.h"

namespace accumlab {

// The tools of the gradient check against the big batch (ArmStepper::checkAgainstBigBatch):
// the window as one batch, the gradients it is compared by, and what a measurement must
// leave as it found it.

/// The window's samples as one batch, normalised by the window's true sample count (so an
/// under-scaled flush-divide-by-K window shows).
WindowPlan asOneBatch(const WindowPlan& plan);

/// |a − b| / |b| over all parameters. (Per tensor, max|Δ| / max|g| blows up where a tensor's
/// per-sample gradients nearly cancel: rounding scales with the summands, not with their
/// small sum. Measured: 2e-5 in float32 on the bias of the default MLP.)
double relativeDifference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b);

/// The parameters' .grad, in order.
std::vector<torch::Tensor> gradsOf(const std::vector<torch::Tensor>& params);

/// Drops the parameters' .grad (before a change of dtype: .grad must match its parameter's).
void dropGrads(std::vector<torch::Tensor>& params);

/// The parameters' .grad and copies of the model's buffers (BatchNorm's running statistics),
/// taken before a measurement runs the window again and put back by restore(). The gradients
/// need no copy: GradWindow::run() drops them before it starts, so these handles stay as they
/// were.
class KeptTrainingState {
 public:
  KeptTrainingState(std::vector<torch::Tensor>& params, Model& model);
  const std::vector<torch::Tensor>& grads() const { return grads_; }
  void restore();

 private:
  std::vector<torch::Tensor>& params_;
  std::vector<torch::Tensor> grads_, buffers_, saved_;
};

}  // namespace accumlab
