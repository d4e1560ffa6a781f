// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <memory>
#include <mutex>
#include <vector>

#include "accumlab/experiment_config.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/window_plan.h"

namespace accumlab {

class FusedMlp;

/// What one window computed, before the optimizer step.
struct WindowResult {
  double loss = 0;          ///< sample-weighted mean loss of the window
  double mb_loss_mean = 0;  ///< mean of the micro-batch mean losses
  double mb_loss_var = 0;   ///< their unbiased variance (0 for one micro-batch)
  bool finite = true;       ///< false when a loss was NaN or Inf
  bool has_noise = false;   ///< true when the gradient norms below were measured
  double g_small_sq = 0;    ///< mean over micro-batches of |g_i|² (g_i = mean gradient)
  double g_big_sq = 0;      ///< |G|², G = the window's sample-weighted mean gradient
  double b_small = 0;       ///< mean micro-batch size
  double b_big = 0;         ///< samples in the window (text: loss terms, e.g. tokens)
  double grad_sq = 0;       ///< |.grad|² after the window: the applied gradient, pre-clip
                            ///< (a shard leaves it 0: the workers' sum is what is applied)

  // The sums the figures above are made of. A data-parallel window adds them up over its
  // workers (WorkerGroup::reduceWindow) and derives the figures again with finish().
  double loss_sum = 0;      ///< Σ per-sample losses
  double mean_sum = 0;      ///< Σ over micro-batches of their mean loss
  double mean_sq_sum = 0;   ///< Σ over micro-batches of their mean loss squared
  double batches = 0;       ///< micro-batches (pieces of one counted once)
  double small_sq_sum = 0;  ///< Σ over measured micro-batches of |g_i|²
  double inv_size_sum = 0;  ///< Σ over measured micro-batches of 1/n_i
  double measured = 0;      ///< micro-batches whose gradient norm was measured
  double samples = 0;       ///< loss terms of the window: samples, or text's tokens

  /// Derives loss, the micro-batch statistics, finiteness and the noise figures from the sums
  /// and grad_sq.
  void finish();
};

/// |t|² of a CPU float32 or float64 tensor, summed in place with no dispatched op. In
/// float32, lanes of float add blocks of 4,096 elements (at most 256 terms per lane) and the
/// blocks add up in double. The noise hooks call it once per parameter per micro-batch.
double hostSquaredNorm(const torch::Tensor& t);

/// Forward and backward over the micro-batches of one window, leaving the accumulated
/// gradient in the parameters' .grad (docs/accumulation.md: each micro-batch's loss is its sum of
/// per-sample losses times the plan's scale, e.g. 1/N_window).
///
/// With `measure_noise` and more than one micro-batch, a gradient hook on every parameter
/// measures each micro-batch's own gradient norm as autograd hands it over, before it is
/// added into .grad — no copies, no extra passes. Used on the training thread only; the hooks
/// may run on autograd's device threads, so their buffer is guarded by `hook_mutex_`.
///
/// A built-in MLP on the CPU (Model::reluStack) trains without autograd (train/fused_mlp.h):
/// the same gradients to the bit, in fewer passes; the noise norms are measured by the same
/// sums. Text, clip-each and every other model take autograd.
class GradWindow {
 public:
  /// `with_noise_hooks` false: the run never measures noise, so no hooks are installed
  /// (run() then ignores its `measure_noise`).
  GradWindow(Model& model, const Dataset& data, torch::Device device, torch::Dtype dtype,
             bool with_noise_hooks = true);
  ~GradWindow();
  GradWindow(const GradWindow&) = delete;
  GradWindow& operator=(const GradWindow&) = delete;

  /// `autograd`: through autograd even where the fused path would run (the gradient check's
  /// big batch, an independent computation of the same gradient).
  WindowResult run(const WindowPlan& plan, bool measure_noise, bool autograd = false);
  /// True when run() trains this model without autograd.
  bool fused() const { return fused_ != nullptr; }
  torch::Device device() const { return device_; }
  torch::Dtype dtype() const { return dtype_; }

 private:
  /// Backward of one micro-batch's `sum` of losses times `scale` (`n` samples), its mean
  /// gradient clipped to `max_norm` before it is added to .grad (pitfall clip-each).
  void addClipped(const torch::Tensor& sum, double scale, double n, double max_norm);
  /// Drops every parameter's gradient before a window, as PyTorch's zero_grad() does: the
  /// first backward then hands its gradient over instead of adding it to zeros.
  void dropGrads();
  /// Gives a zero gradient to each parameter the window's backward passes did not reach (or a
  /// worker with no share of the window), so that every .grad is defined after run().
  void fillMissingGrads();

  Model& model_;
  const Dataset& data_;
  torch::Device device_;
  torch::Dtype dtype_;
  std::vector<torch::Tensor> params_;
  std::vector<unsigned> hooks_;  ///< one per parameter, removed on destruction
  std::mutex hook_mutex_;
  bool capturing_ = false;  ///< guarded by hook_mutex_
  /// Per-parameter |grad|², guarded by hook_mutex_: read on the host for a model on the
  /// CPU, else one-element tensors on the model's device, read after the window.
  std::vector<double> captured_host_;
  std::vector<torch::Tensor> captured_device_;
  std::unique_ptr<FusedMlp> fused_;  ///< set for a built-in MLP on the CPU, else null
};

}  // namespace accumlab
