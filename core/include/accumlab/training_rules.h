// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

#include "accumlab/experiment_config.h"

namespace accumlab {

// Rules of training that the front ends apply too, without LibTorch: the trainer follows
// them, the app shows and paces by them.

/// How many of `config`'s arms train at once (config.arm_threads; docs/performance.md, "Arms
/// at once"): one with data-parallel workers or off the CPU, else arm_threads (0: one per
/// core of `cores`), and never more than the arms. The trainer schedules by it; the app paces
/// its plots by it.
int armsAtOnce(const ExperimentConfig& config, int cores, bool on_cpu);

/// The LR of an arm before scheduling: the base LR times the scaling rule applied to
/// `batch_ratio` = B_eff / m (K for accum and big-batch, 1 for no-accum).
double scaledLearningRate(const OptimizerConfig& config, double batch_ratio);

/// Why a run refuses to change its sizes mid-run to m = `to_m`, K = `to_k` (a sentence for
/// the event the trainer emits), or "" when it takes the change: `workers` processes would
/// all have to change at the same window; policy drop would discard every window of
/// `train_size` samples.
std::string refusedSizeChange(const ExperimentConfig& config, int64_t to_m, int64_t to_k,
                              int64_t train_size);

/// "m·K = 64 (m = 8, K = 8)", for the sentences that refuse a size.
std::string sizesText(int64_t m, int64_t k);

}  // namespace accumlab
