// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/sweep.h"

namespace accumlab {

/// The sizes and learning rates a sweep crosses (`accumlab-cli sweep`'s --micro-batch,
/// --accum, --effective-batch and --lr, the Sweeps tab's fields, a sweep lesson's batches).
/// An empty list takes the base config's one value.
struct SweepGrid {
  std::vector<int64_t> micro_batches;      ///< m
  std::vector<int64_t> accums;             ///< K (not with effective_batches)
  std::vector<int64_t> effective_batches;  ///< B = m·K: K = B/m for each m
  std::vector<double> lrs;
};

/// The grid's points in their one order: each size (B then m, or m then K), and for each its
/// learning rates; indices from 0. With effective batches, an m above B trains B as one
/// micro-batch, and a pair that comes twice is kept once. Throws InputError for a B that is
/// not a multiple of its m, for both accums and effective batches, and for fewer than 2
/// points when `min_points` is 2.
std::vector<SweepPoint> buildSweepGrid(const ExperimentConfig& base, const SweepGrid& grid,
                                       size_t min_points = 2);

/// `base` with the point's m, K and LR.
ExperimentConfig sweepPointConfig(const ExperimentConfig& base, const SweepPoint& point);
/// The point's sizes and LR for people: "B=32 (8×4) lr=0.1".
std::string describeSweepPoint(const SweepPoint& point);

}  // namespace accumlab
