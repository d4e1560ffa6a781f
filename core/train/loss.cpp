// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/loss.h"

namespace accumlab {

namespace F = torch::nn::functional;

namespace {

// Each target token's cross-entropy, [batch, T]; 0 at padding.
torch::Tensor tokenLosses(const torch::Tensor& output, const torch::Tensor& target) {
  return F::cross_entropy(
             output.reshape({-1, output.size(-1)}), target.reshape(-1),
             F::CrossEntropyFuncOptions().reduction(torch::kNone).ignore_index(kIgnoredTarget))
      .view_as(target);
}

torch::Tensor tokensPerSequence(const torch::Tensor& target, torch::Dtype dtype) {
  return target.ne(kIgnoredTarget).sum(1).to(dtype);
}

}  // namespace

torch::Tensor summedLoss(const Dataset& data, const torch::Tensor& output,
                         const torch::Tensor& target) {
  if (data.isText()) {
    if (data.token_loss == TokenLoss::kSequences) return sampleLosses(data, output, target).sum();
    return F::cross_entropy(
        output.reshape({-1, output.size(-1)}), target.reshape(-1),
        F::CrossEntropyFuncOptions().reduction(torch::kSum).ignore_index(kIgnoredTarget));
  }
  if (data.task == Task::kClassification) {
    return F::cross_entropy(output, target, F::CrossEntropyFuncOptions().reduction(torch::kSum));
  }
  return F::mse_loss(output, target.view_as(output),
                     F::MSELossFuncOptions().reduction(torch::kSum));
}

torch::Tensor sampleLosses(const Dataset& data, const torch::Tensor& output,
                           const torch::Tensor& target) {
  if (data.isText()) {
    torch::Tensor sums = tokenLosses(output, target).sum(1);
    if (data.token_loss == TokenLoss::kSequences) {
      sums = sums / tokensPerSequence(target, sums.scalar_type());
    }
    return sums;
  }
  if (data.task == Task::kClassification) {
    return F::cross_entropy(output, target, F::CrossEntropyFuncOptions().reduction(torch::kNone));
  }
  return F::mse_loss(output, target.view_as(output),
                     F::MSELossFuncOptions().reduction(torch::kNone))
      .sum(1);
}

torch::Tensor correctPredictions(const Dataset& data, const torch::Tensor& output,
                                 const torch::Tensor& target) {
  if (data.isText()) return output.argmax(-1).eq(target).sum();  // padding never matches -100
  return output.argmax(1).eq(target).sum();
}

double predictionCount(const Dataset& data, const torch::Tensor& target) {
  if (data.isText()) return static_cast<double>(target.ne(kIgnoredTarget).sum().item<int64_t>());
  return static_cast<double>(target.size(0));
}

}  // namespace accumlab
