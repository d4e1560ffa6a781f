// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/fused_mlp.h"

#include <ATen/core/Reduction.h>

#include <stdexcept>

#include "train/grad_window.h"

namespace accumlab {

namespace {

// nll_loss's default: no label is ignored in a built-in model's classification.
constexpr int64_t kNoIgnoredLabel = -100;

size_t indexIn(const std::vector<torch::Tensor>& params, const torch::Tensor& t) {
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].is_same(t)) return i;
  }
  throw std::logic_error("FusedMlp: a layer's tensor is not among the model's parameters");
}

// A reused buffer of `rows` × `cols` in `like`'s dtype and device.
torch::Tensor& fitted(torch::Tensor& buffer, int64_t rows, int64_t cols,
                      const torch::Tensor& like) {
  if (!buffer.defined() || buffer.size(0) != rows || buffer.size(1) != cols ||
      buffer.scalar_type() != like.scalar_type()) {
    buffer = torch::empty({rows, cols}, like.options());
  }
  return buffer;
}

// ReLU in place, as clamp_min_(0) computes it (x < 0 ? 0 : x: NaN and -0 stay), without a
// dispatched op: at m = 8 the op's dispatch costs more than its 2,048 comparisons.
template <typename T>
void reluInPlace(T* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? T(0) : x[i];
}

// ReLU's backward in place on `d`, as threshold_backward(d, out, 0) computes it (out <= 0 ? 0
// : d).
template <typename T>
void reluBackwardInPlace(T* d, const T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) d[i] = out[i] <= 0 ? T(0) : d[i];
}

void relu(torch::Tensor& x) {
  if (x.scalar_type() == torch::kFloat32) {
    reluInPlace(x.data_ptr<float>(), x.numel());
  } else {
    reluInPlace(x.data_ptr<double>(), x.numel());
  }
}

void reluBackward(torch::Tensor& d, const torch::Tensor& out) {
  if (d.scalar_type() == torch::kFloat32) {
    reluBackwardInPlace(d.data_ptr<float>(), out.data_ptr<float>(), d.numel());
  } else {
    reluBackwardInPlace(d.data_ptr<double>(), out.data_ptr<double>(), d.numel());
  }
}

}  // namespace

FusedMlp::FusedMlp(std::vector<std::pair<torch::Tensor, torch::Tensor>> layers,
                   const std::vector<torch::Tensor>& params)
    : params_(params), outputs_(layers.size()) {
  for (auto& [weight, bias] : layers) {
    weight_index_.push_back(indexIn(params_, weight));
    bias_index_.push_back(indexIn(params_, bias));
    weights_.push_back(std::move(weight));
    biases_.push_back(std::move(bias));
  }
}

void FusedMlp::accumulate(size_t index, const torch::Tensor& part, std::vector<double>* squares) {
  if (squares) squares->push_back(hostSquaredNorm(part));
  torch::Tensor& grad = params_[index].mutable_grad();
  // As autograd's AccumulateGrad: the first part becomes .grad, the next ones are added in
  // place.
  if (grad.defined()) {
    grad.add_(part);
  } else {
    grad = part;
  }
}

void FusedMlp::addWeightGradient(size_t layer, const torch::Tensor& d, const torch::Tensor& input,
                                 std::vector<double>* squares) {
  const size_t index = weight_index_[layer];
  torch::Tensor& grad = params_[index].mutable_grad();
  // autograd's mm_mat2_backward for linear's weight.t(): (d.t()·input).t(), transposed back.
  // Where the part's own norm is measured, it is computed on its own first, as autograd does.
  if (!grad.defined() || squares) {
    accumulate(index, torch::mm(d.t(), input), squares);
  } else {
    // C += d.t()·input inside the GEMM: no new tensor, no second pass over the gradient. The
    // GEMM adds its product to C once, as autograd's addition does (the micro-batch is the
    // inner dimension, one block of it): the same bits, which
    // FusedMlp.MatchesAutogradBitForBit checks.
    grad.addmm_(d.t(), input);
  }
}

void FusedMlp::release() {
  for (auto& out : outputs_) out = torch::Tensor();
}

torch::Tensor FusedMlp::microBatch(const torch::Tensor& input, const torch::Tensor& target,
                                   bool classification, double scale,
                                   std::vector<double>* squares) {
  torch::NoGradGuard no_grad;
  const size_t n = weights_.size();
  const torch::Tensor x = input.flatten(1);
  const int64_t rows = x.size(0);
  // Forward, as at::linear runs a 2-d input with a bias: addmm(bias, x, weight.t()).
  torch::Tensor h = x;
  for (size_t l = 0; l < n; ++l) {
    torch::Tensor& out = fitted(outputs_[l], rows, weights_[l].size(0), x);
    torch::addmm_out(out, biases_[l], h, weights_[l].t());
    if (l + 1 < n) relu(out);
    h = out;
  }
  // The loss and its gradient at the logits, with autograd's kernels: (Σ losses · scale)'s
  // backward hands `scale` (in the model's dtype) to the loss's backward.
  const torch::Tensor& logits = outputs_[n - 1];
  const torch::Tensor seed = torch::scalar_tensor(scale, logits.options());
  torch::Tensor sum, d;
  if (classification) {
    // F::cross_entropy = nll_loss(log_softmax(logits, 1)).
    const torch::Tensor log_p = torch::_log_softmax(logits, 1, false);
    auto [loss, total_weight] =
        torch::nll_loss_forward(log_p, target, {}, at::Reduction::Sum, kNoIgnoredLabel);
    const torch::Tensor d_log_p = torch::nll_loss_backward(
        seed, log_p, target, {}, at::Reduction::Sum, kNoIgnoredLabel, total_weight);
    d = torch::_log_softmax_backward_data(d_log_p, log_p, 1, logits.scalar_type());
    sum = loss;
  } else {
    const torch::Tensor t = target.view_as(logits);
    sum = torch::mse_loss(logits, t, at::Reduction::Sum);
    d = torch::mse_loss_backward(seed, logits, t, at::Reduction::Sum);
  }
  // Backward, layer by layer from the head, as AddmmBackward, ThresholdBackward (relu) and
  // AccumulateGrad run it: the bias's part (sum_to over the batch), the weight's, then the
  // gradient at the layer's input.
  for (size_t l = n; l-- > 0;) {
    accumulate(bias_index_[l], d.sum({0}, /*keepdim=*/true).view({-1}), squares);
    const torch::Tensor& in = l > 0 ? outputs_[l - 1] : x;
    addWeightGradient(l, d, in, squares);
    if (l > 0) {
      d = torch::mm(d, weights_[l]);  // a new contiguous tensor: ReLU's backward writes into it
      reluBackward(d, outputs_[l - 1]);
    }
  }
  return sum;
}

}  // namespace accumlab
