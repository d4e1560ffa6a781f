// SPDX-License-Identifier: GPL-3.0-or-later
// The one place a sweep's grid is built: for the CLI, the app's Sweeps tab and sweep lessons.
#include "accumlab/sweep_grid.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "accumlab/input_error.h"

namespace accumlab {

std::vector<SweepPoint> buildSweepGrid(const ExperimentConfig& base, const SweepGrid& grid,
                                       size_t min_points) {
  if (!grid.accums.empty() && !grid.effective_batches.empty()) {
    throw InputError("a sweep takes accumulation counts K or effective batches B, not both");
  }
  std::vector<std::pair<int64_t, int64_t>> sizes;
  const std::vector<int64_t> ms =
      grid.micro_batches.empty() ? std::vector<int64_t>{base.micro_batch} : grid.micro_batches;
  if (!grid.effective_batches.empty()) {
    // Each B with each m (several m at one B show the memory/speed trade-off).
    for (int64_t b : grid.effective_batches) {
      for (int64_t given : ms) {
        const int64_t m = std::min(given, b);  // a batch below m is one micro-batch
        if (m < 1 || b % m != 0) {
          throw InputError("effective batch " + std::to_string(b) +
                           " is not a multiple of m = " + std::to_string(m) + "; choose B = m·K");
        }
        if (std::find(sizes.begin(), sizes.end(), std::make_pair(m, b / m)) == sizes.end()) {
          sizes.emplace_back(m, b / m);
        }
      }
    }
  } else {
    const std::vector<int64_t> ks =
        grid.accums.empty() ? std::vector<int64_t>{base.accum} : grid.accums;
    for (int64_t m : ms) {
      for (int64_t k : ks) sizes.emplace_back(m, k);
    }
  }
  const std::vector<double> lrs =
      grid.lrs.empty() ? std::vector<double>{base.optimizer.lr} : grid.lrs;
  std::vector<SweepPoint> points;
  for (const auto& [m, k] : sizes) {
    for (double lr : lrs) {
      SweepPoint p;
      p.index = static_cast<int64_t>(points.size());
      p.micro_batch = m;
      p.accum = k;
      p.lr = lr;
      points.push_back(p);
    }
  }
  if (points.size() < min_points) {
    throw InputError("a sweep needs at least " + std::to_string(min_points) +
                     " points; give several --micro-batch, --accum or --effective-batch values");
  }
  return points;
}

ExperimentConfig sweepPointConfig(const ExperimentConfig& base, const SweepPoint& point) {
  ExperimentConfig c = base;
  c.micro_batch = point.micro_batch;
  c.accum = point.accum;
  c.optimizer.lr = point.lr;
  return c;
}

std::string describeSweepPoint(const SweepPoint& p) {
  char lr[32];
  std::snprintf(lr, sizeof lr, "%g", p.lr);
  return "B=" + std::to_string(p.effectiveBatch()) + " (" + std::to_string(p.micro_batch) + "×" +
         std::to_string(p.accum) + ") lr=" + lr;
}

}  // namespace accumlab
