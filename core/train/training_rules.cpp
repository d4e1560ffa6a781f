// SPDX-License-Identifier: GPL-3.0-or-later
// Training's rules without LibTorch, so that the app and the torch-free library can use them;
// the engine applies them (core/train/arm_stepper.cpp, core/train/trainer.cpp).
#include "accumlab/training_rules.h"

#include <algorithm>
#include <cmath>

namespace accumlab {

double scaledLearningRate(const OptimizerConfig& c, double batch_ratio) {
  switch (c.scaling) {
    case LrScaling::kNone:
      return c.lr;
    case LrScaling::kLinear:
      return c.lr * batch_ratio;
    case LrScaling::kSqrt:
      return c.lr * std::sqrt(batch_ratio);
  }
  return c.lr;
}

int armsAtOnce(const ExperimentConfig& config, int cores, bool on_cpu) {
  if (config.arm_threads == 1 || config.workers > 1 || !on_cpu) return 1;
  const int arms = std::max(1, static_cast<int>(config.arms.size()));
  return std::min(arms, config.arm_threads > 0 ? config.arm_threads : std::max(1, cores));
}

}  // namespace accumlab
