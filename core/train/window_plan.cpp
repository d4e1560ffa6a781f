// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/window_plan.h"

#include <algorithm>

namespace accumlab {

std::vector<torch::Tensor> splitMicroBatches(const torch::Tensor& rows, int64_t m) {
  std::vector<torch::Tensor> out;
  const int64_t n = rows.size(0);
  for (int64_t begin = 0; begin < n; begin += m) {
    out.push_back(rows.slice(0, begin, std::min(n, begin + m)));
  }
  return out;
}

WindowPlan planWindow(SampleStream& stream, int64_t m, int64_t k, WindowPolicy policy,
                      int64_t budget_left, const RowWeight& weigh) {
  WindowPlan plan;
  plan.weigh = weigh;
  const int64_t full = m * k;
  int64_t take = std::min(full, budget_left);
  if (policy != WindowPolicy::kStream) take = std::min(take, stream.remainingInEpoch());
  if (take <= 0) return plan;
  plan.partial = take < full;
  plan.consumed = take;
  torch::Tensor rows = stream.take(take);
  if (plan.partial && policy == WindowPolicy::kDrop) {
    plan.dropped = true;
    return plan;
  }
  plan.micro_batches = splitMicroBatches(rows, m);
  plan.samples = take;
  plan.exact_mean = !(plan.partial && policy == WindowPolicy::kFlushDivideByK);
  // Every micro-batch's loss terms are counted before any backward: the window's total
  // divides each summed loss (for text, the fixed trainers' "tokens in the whole batch").
  for (const auto& mb : plan.micro_batches) {
    plan.weights.push_back(plan.weightOf(mb));
    plan.weight += plan.weights.back();
  }
  for (const double n : plan.weights) {
    // sum/N_window gives the sample-weighted mean gradient. flush-divide-by-K changes only a
    // window cut short: each micro-batch's mean ÷ K, as Lightning and Accelerate divide, which
    // under-scales it. A full window stays exact: for rows 1/(m·K) is 1/N_window anyway, for
    // text its micro-batches hold different token counts, and mean ÷ K there would be the
    // mean-of-means pitfall on every window.
    plan.loss_scales.push_back(plan.partial && policy == WindowPolicy::kFlushDivideByK
                                   ? 1.0 / (n * static_cast<double>(k))
                                   : 1.0 / plan.weight);
  }
  return plan;
}

}  // namespace accumlab

namespace accumlab {

WindowPlan splitInHalves(const WindowPlan& plan) {
  WindowPlan out = plan;
  if (plan.micro_batches.size() != 1 || plan.samples < 2) return out;
  const torch::Tensor& rows = plan.micro_batches.front();
  const int64_t half = rows.size(0) / 2;
  out.micro_batches = {rows.slice(0, 0, half), rows.slice(0, half, rows.size(0))};
  out.loss_scales = {plan.loss_scales.front(), plan.loss_scales.front()};
  out.weights = {plan.weightOf(out.micro_batches[0]), plan.weightOf(out.micro_batches[1])};
  return out;
}

WindowPlan splitPieces(const WindowPlan& plan, int64_t cap) {
  WindowPlan out = plan;
  out.micro_batches.clear();
  out.loss_scales.clear();
  out.weights.clear();
  out.batch_of.clear();
  for (size_t i = 0; i < plan.micro_batches.size(); ++i) {
    // The parent's original index, so that splitting a split plan still maps to the plan's
    // micro-batches.
    const size_t parent = plan.batch_of.empty() ? i : plan.batch_of[i];
    for (auto& piece : splitMicroBatches(plan.micro_batches[i], cap)) {
      out.weights.push_back(plan.weightOf(piece));
      out.micro_batches.push_back(std::move(piece));
      out.loss_scales.push_back(plan.loss_scales[i]);
      out.batch_of.push_back(parent);
    }
  }
  return out;
}

WindowPlan shardOf(const WindowPlan& plan, int rank, int workers) {
  WindowPlan out = plan;
  out.micro_batches.clear();
  out.loss_scales.clear();
  out.weights.clear();
  out.batch_of.clear();
  out.shard = true;
  out.window_batches = plan.batches();
  for (size_t i = static_cast<size_t>(rank); i < plan.micro_batches.size();
       i += static_cast<size_t>(workers)) {
    out.micro_batches.push_back(plan.micro_batches[i]);
    out.loss_scales.push_back(plan.loss_scales[i]);
    out.weights.push_back(plan.weights[i]);
  }
  return out;
}

int64_t windowBoundaryAtOrAfter(int64_t consumed, int64_t position, int64_t window, int64_t budget,
                                int64_t epoch, WindowPolicy policy) {
  int64_t at = consumed;
  while (at < position && at < budget) {
    int64_t take = std::min(window, budget - at);
    if (policy != WindowPolicy::kStream) take = std::min(take, epoch - at % epoch);
    at += take;
  }
  return at;
}

}  // namespace accumlab
