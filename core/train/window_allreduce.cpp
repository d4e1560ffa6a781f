// SPDX-License-Identifier: GPL-3.0-or-later
// One accum window's all-reduce in a data-parallel run (WorkerGroup::reduceWindow): this
// rank's gradient, its share of the window's sums and its wish to stop, packed into one buffer.
#include <cmath>
#include <stdexcept>
#include <string>

#include "train/grad_window.h"
#include "train/worker_group.h"

namespace accumlab {

void WorkerGroup::reduceWindow(std::vector<torch::Tensor>& params,
                               const std::vector<torch::Tensor>& share, int64_t window_samples,
                               WindowResult& r) {
  double share_samples = 0;
  for (const auto& mb : share) share_samples += static_cast<double>(mb.size(0));
  std::vector<torch::Tensor> parts;
  parts.reserve(params.size() + 1);
  int64_t grad_numel = 0;
  for (const auto& p : params) {
    parts.push_back(p.grad().reshape(-1));
    grad_numel += p.numel();
  }
  // The sums ride in the gradients' buffer: one all-reduce per window.
  enum Sum {
    kLoss,
    kMean,
    kMeanSq,
    kBatches,
    kSmallSq,
    kInvSize,
    kMeasured,
    kSamples,
    kStop,
    kCount
  };
  double sums[kCount] = {r.loss_sum, r.mean_sum,     r.mean_sq_sum,
                         r.batches,  r.small_sq_sum, r.inv_size_sum,
                         r.measured, share_samples,  stopWanted() ? 1.0 : 0.0};
  parts.push_back(
      torch::from_blob(sums, {kCount}, torch::kFloat64).to(params.front().grad().options()));
  torch::Tensor buffer = torch::cat(parts);
  allReduceSum(buffer);
  torch::NoGradGuard no_grad;
  int64_t at = 0;
  for (auto& p : params) {
    p.mutable_grad().copy_(buffer.narrow(0, at, p.numel()).view_as(p));
    at += p.numel();
  }
  const torch::Tensor total = buffer.narrow(0, grad_numel, kCount).to(torch::kCPU, torch::kFloat64);
  const double* t = total.data_ptr<double>();
  if (std::llround(t[kSamples]) != window_samples) {
    throw std::runtime_error("the workers trained " + std::to_string(std::llround(t[kSamples])) +
                             " samples of a window of " + std::to_string(window_samples) +
                             ": they do not share one sample stream");
  }
  r.loss_sum = t[kLoss];
  r.mean_sum = t[kMean];
  r.mean_sq_sum = t[kMeanSq];
  r.batches = t[kBatches];
  r.small_sq_sum = t[kSmallSq];
  r.inv_size_sum = t[kInvSize];
  r.measured = t[kMeasured];
  const double norm = buffer.narrow(0, 0, grad_numel).norm().item<double>();
  r.grad_sq = norm * norm;
  r.finish();
  agreeStop(t[kStop] > 0);
}

}  // namespace accumlab
