#pragma once

#include <torch/torch.h>

#include <vector>

#include "accumlab/experiment_config.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/window_plan.h"

namespace accumlab {

/// Σ over parameters of |grad|², reduced on the device in the parameters' dtype.
double squaredGradNorm(const std::vector<torch::Tensor>& params);

/// What one window computed, before the optimizer step.
struct WindowResult {
  double loss = 0;           ///< sample-weighted mean loss of the window
  double mb_loss_mean = 0;   ///< mean of the micro-batch mean losses
  double mb_loss_var = 0;    ///< their unbiased variance (0 for one micro-batch)
  bool finite = true;        ///< false when a loss was NaN or Inf
  bool has_noise = false;    ///< true when the gradient norms below were measured
  double g_small_sq = 0;     ///< mean over micro-batches of |g_i|² (g_i = mean gradient)
  double g_big_sq = 0;       ///< |G|², G = the window's sample-weighted mean gradient
  double b_small = 0;        ///< mean micro-batch size
  double b_big = 0;          ///< samples in the window
};

/// Forward and backward over the micro-batches of one window, leaving the accumulated
/// gradient in the parameters' .grad (DESIGN.md §2: each micro-batch's loss is its sum of
/// per-sample losses times the plan's scale, e.g. 1/N_window).
///
/// With `measure_noise` and more than one micro-batch, each micro-batch's gradient is taken
/// on its own (into zeroed .grad), its squared norm measured, and added to `accumulator`;
/// the result in .grad is the same sum. Used on the training thread only.
class GradWindow {
 public:
  GradWindow(Model& model, const Dataset& data, torch::Device device, torch::Dtype dtype);

  WindowResult run(const WindowPlan& plan, bool measure_noise);
  /// Sets every parameter's gradient to zero (allocating it on first use).
  void zeroGrad();

 private:
  torch::Tensor lossSum(const torch::Tensor& output, const torch::Tensor& target) const;

  Model& model_;
  const Dataset& data_;
  torch::Device device_;
  torch::Dtype dtype_;
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> accumulator_;
};

}  // namespace accumlab
