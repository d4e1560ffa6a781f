// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab {

/// A LibTorch optimizer for the config's kind and hyper-parameters at the given LR.
std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const OptimizerConfig& config,
                                                       std::vector<torch::Tensor> params,
                                                       double lr);
/// Sets the LR of every parameter group.
void setLearningRate(torch::optim::Optimizer& optimizer, double lr);

/// The scheduled LR after `samples_seen` samples out of `budget`, for an arm whose unscheduled
/// LR is `base_lr`. Schedules run on samples seen, so arms with different step counts follow
/// the same curve. `epoch_size` is the default period of the step schedule.
double scheduledLr(const OptimizerConfig& config, double base_lr, int64_t samples_seen,
                   int64_t budget, int64_t epoch_size);

}  // namespace accumlab
