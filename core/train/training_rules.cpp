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

std::string sizesText(int64_t m, int64_t k) {
  return "m·K = " + std::to_string(m * k) + " (m = " + std::to_string(m) +
         ", K = " + std::to_string(k) + ")";
}

std::string refusedSizeChange(const ExperimentConfig& config, int64_t to_m, int64_t to_k,
                              int64_t train_size) {
  if (config.workers > 1) {
    return "change of m or K ignored: the " + std::to_string(config.workers) +
           " workers would all have to change at the same window; start a new run";
  }
  if (config.window_policy == WindowPolicy::kDrop && to_m * to_k > train_size) {
    return "change to " + sizesText(to_m, to_k) +
           " ignored: policy drop would discard every window of the " + std::to_string(train_size) +
           " training samples; choose a smaller m or K";
  }
  return "";
}

}  // namespace accumlab
