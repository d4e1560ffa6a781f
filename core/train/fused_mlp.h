// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace accumlab {

/// The forward and backward of a stack of fully connected layers with ReLU between them (the
/// built-in mlp and logreg), written out without autograd: the same ATen kernels in the same
/// order as autograd runs them, so the gradients are the same bits, with none of autograd's
/// graph, and, where the noise statistics do not need a micro-batch's own part, with each
/// weight gradient added into .grad by the GEMM itself (beta = 1) instead of through a new
/// tensor and an addition (docs/performance.md).
/// Used on the training thread only, like the GradWindow that owns it.
class FusedMlp {
 public:
  /// `layers`: (weight [out, in], bias [out]) from the first layer to the head, as
  /// Model::reluStack() gives them; `params`: the model's parameters, which hold them.
  FusedMlp(std::vector<std::pair<torch::Tensor, torch::Tensor>> layers,
           const std::vector<torch::Tensor>& params);

  /// Forward and backward of one micro-batch: adds the gradient of `scale`·Σ losses into the
  /// parameters' .grad (taking it over where .grad is undefined) and returns Σ losses
  /// (0-dim). `classification`: cross-entropy against int64 labels, else the squared error
  /// summed over the outputs. With `squares`, appends |part|² of each parameter's own part of
  /// the gradient, in the order autograd's hooks see them (from the head down, bias first).
  torch::Tensor microBatch(const torch::Tensor& input, const torch::Tensor& target,
                           bool classification, double scale, std::vector<double>* squares);
  /// Frees the layers' outputs kept for the window's next micro-batch: after a window, so
  /// that its activations are not held through the optimizer step and between windows, as
  /// autograd's are not.
  void release();

 private:
  /// Adds `part` into parameter `index`'s .grad, or makes it the .grad.
  void accumulate(size_t index, const torch::Tensor& part, std::vector<double>* squares);
  /// The weight gradient d.t()·input of `layer`, added into its .grad.
  void addWeightGradient(size_t layer, const torch::Tensor& d, const torch::Tensor& input,
                         std::vector<double>* squares);

  std::vector<torch::Tensor> weights_, biases_;
  std::vector<torch::Tensor> params_;
  std::vector<size_t> weight_index_, bias_index_;  ///< each layer's place in params_
  std::vector<torch::Tensor> outputs_;             ///< each layer's output, reused within a window
};

}  // namespace accumlab
