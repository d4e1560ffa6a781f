// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/big_batch_check.h"

#include "accumlab/records.h"

namespace accumlab {

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

void dropGrads(std::vector<torch::Tensor>& params) {
  for (auto& p : params) p.mutable_grad().reset();
}

KeptTrainingState::KeptTrainingState(std::vector<torch::Tensor>& params, Model& model)
    : params_(params), grads_(gradsOf(params)), buffers_(model.buffers()) {
  for (const auto& b : buffers_) saved_.push_back(b.clone());
}

void KeptTrainingState::restore() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) params_[i].mutable_grad() = grads_[i];
  for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].copy_(saved_[i]);
}

}  // namespace accumlab
