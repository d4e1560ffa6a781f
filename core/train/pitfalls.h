// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

#include "accumlab/experiment_config.h"
#include "train/window_plan.h"

namespace accumlab {

/// Makes accum's correctly planned window `plan` (`k` micro-batches planned per window) into
/// what pitfall arm `arm` computes (docs/pitfalls.md); `clip_norm` is the run's --clip-norm.
/// Each mistake is in the loss scales or in how the window treats .grad:
/// - sum: each micro-batch's mean loss, added: scale 1/n_i (K× the big batch's gradient);
/// - last-only: .grad zeroed before each micro-batch, so only the last counts: 1/n_K, others 0;
/// - double-last: each micro-batch's mean ÷ K, the last added twice: 1/(n_i·K), last 2/(n_K·K);
/// - mean-of-means: each micro-batch's mean ÷ K: 1/(n_i·K), exact only when all sizes are equal;
/// - clip-each: each micro-batch's mean gradient clipped to `clip_norm` before it is added;
/// - no-zero: .grad never zeroed, so each window adds to every earlier window's gradient.
/// schedule-per-micro changes no window: its LR schedule runs K× too fast (schedulePosition).
/// A pitfall window measures no gradient noise (its scaled sum is not the mean gradient).
void applyPitfall(ArmKind arm, int64_t k, double clip_norm, WindowPlan& plan);

/// Where arm `arm`'s LR schedule stands, in samples, for the update of a window of
/// `window_micro_batches` micro-batches (`m` samples each, `k` in a full window): the samples
/// seen, `samples_seen`, for every arm but schedule-per-micro. That arm's loop calls
/// scheduler.step() after every micro-batch it trains, whatever the micro-batch's size (after
/// the optimizer's step at a window's end), and each call moves a schedule written per update
/// one update, m·K samples, on; a dropped window trains no micro-batch and moves nothing. After
/// `scheduler_samples` (m·K for each micro-batch of the windows before), it stands at
/// scheduler_samples + (window_micro_batches − 1)·m·K for this window's update.
int64_t schedulePosition(ArmKind arm, int64_t samples_seen, int64_t scheduler_samples, int64_t m,
                         int64_t k, int64_t window_micro_batches);

}  // namespace accumlab
