// SPDX-License-Identifier: GPL-3.0-or-later
// The wrong accumulation recipes as changes to a window (docs/pitfalls.md).
#include "train/pitfalls.h"

namespace accumlab {

void applyPitfall(ArmKind arm, int64_t k, double clip_norm, WindowPlan& plan) {
  if (!isPitfall(arm) || plan.micro_batches.empty()) return;
  plan.exact_mean = false;
  const size_t last = plan.micro_batches.size() - 1;
  const double K = static_cast<double>(k);
  for (size_t i = 0; i <= last; ++i) {
    const double n = plan.weights[i];  // rows, or a text batch's tokens
    double& scale = plan.loss_scales[i];
    switch (arm) {
      case ArmKind::kPitfallSum:
        scale = 1.0 / n;
        break;
      case ArmKind::kPitfallLastOnly:
        scale = i == last ? 1.0 / n : 0.0;
        break;
      case ArmKind::kPitfallDoubleLast:
        scale = (i == last ? 2.0 : 1.0) / (n * K);
        break;
      case ArmKind::kPitfallMeanOfMeans:
        scale = 1.0 / (n * K);
        break;
      default:
        break;  // the others keep accum's exact scales
    }
  }
  if (arm == ArmKind::kPitfallClipEach) plan.clip_each = clip_norm;
  if (arm == ArmKind::kPitfallNoZero) plan.keep_grads = true;
}

int64_t schedulePosition(ArmKind arm, int64_t samples_seen, int64_t scheduler_samples, int64_t m,
                         int64_t k, int64_t window_micro_batches) {
  if (arm != ArmKind::kPitfallSchedulePerMicro) return samples_seen;
  // Counted in micro-batches, not samples: a short micro-batch moves the scheduler as far as a
  // full one, and the samples of a dropped window not at all.
  return scheduler_samples + (window_micro_batches - 1) * m * k;
}

}  // namespace accumlab
