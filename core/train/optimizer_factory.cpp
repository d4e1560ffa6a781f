// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/optimizer_factory.h"

#include <algorithm>
#include <cmath>

namespace accumlab {

namespace {

/// Adam or AdamW (`Optimizer` with its `Options`): the same settings, the decay applied
/// differently.
template <typename Optimizer, typename Options>
std::unique_ptr<torch::optim::Optimizer> makeAdam(const OptimizerConfig& c,
                                                  std::vector<torch::Tensor> params, double lr) {
  return std::make_unique<Optimizer>(
      std::move(params),
      Options(lr).betas({c.beta1, c.beta2}).eps(c.eps).weight_decay(c.weight_decay));
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const OptimizerConfig& c,
                                                       std::vector<torch::Tensor> params,
                                                       double lr) {
  switch (c.kind) {
    case OptimizerKind::kSgd:
      return std::make_unique<torch::optim::SGD>(std::move(params),
                                                 torch::optim::SGDOptions(lr)
                                                     .momentum(c.momentum)
                                                     .nesterov(c.nesterov)
                                                     .weight_decay(c.weight_decay));
    case OptimizerKind::kAdam:
      return makeAdam<torch::optim::Adam, torch::optim::AdamOptions>(c, std::move(params), lr);
    case OptimizerKind::kAdamW:
      return makeAdam<torch::optim::AdamW, torch::optim::AdamWOptions>(c, std::move(params), lr);
  }
  throw std::logic_error("unknown optimizer kind");
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

double scheduledLr(const OptimizerConfig& c, double base_lr, int64_t samples_seen, int64_t budget,
                   int64_t epoch_size) {
  const double s = static_cast<double>(samples_seen);
  double factor = 1.0;
  switch (c.schedule) {
    case LrSchedule::kConstant:
      break;
    case LrSchedule::kStep: {
      const int64_t period = c.step_every_samples > 0 ? c.step_every_samples : epoch_size;
      factor =
          std::pow(c.step_gamma, static_cast<double>(samples_seen / std::max<int64_t>(1, period)));
      break;
    }
    case LrSchedule::kCosine: {
      const double progress = std::min(1.0, s / static_cast<double>(std::max<int64_t>(1, budget)));
      factor = 0.5 * (1.0 + std::cos(M_PI * progress));
      break;
    }
  }
  if (c.warmup_samples > 0 && samples_seen < c.warmup_samples) {
    factor *= (s + 1.0) / static_cast<double>(c.warmup_samples);
  }
  return base_lr * factor;
}

}  // namespace accumlab
