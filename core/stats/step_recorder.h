// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <deque>

#include "accumlab/records.h"
#include "accumlab/smoothing.h"
#include "stats/noise_estimator.h"

namespace accumlab {

/// Turns what one arm's stepper measured into a complete StepRecord: the unbiased gradient
/// noise estimates and their debiased EMAs, B_simple, trΣ/B_eff, and the rolling variance
/// of the per-update loss (docs/measurements.md). One per arm; used on the training thread only.
class StepRecorder {
 public:
  StepRecorder(double noise_ema, int64_t variance_window);

  /// Fills the derived fields of `record`, whose measured fields (loss, window samples and,
  /// when measured, g_small_sq, g_big_sq, b_small, b_big) the stepper has set.
  void complete(StepRecord& record);

  /// Mean window loss over the last W updates.
  double lossMean() const { return losses_.mean(); }
  /// Variance of the window loss over the last W updates.
  double lossVariance() const { return losses_.variance(); }
  /// Detrended variance of the window loss over the last W updates (successive differences).
  double lossDetrendedVariance() const { return losses_.detrendedVariance(); }
  /// Updates the two variances are taken over: min(W, updates so far).
  int64_t lossCount() const { return losses_.size(); }
  /// B_simple = EMA(trΣ) / EMA(|G|²), NaN before the first noise measurement.
  double bSimple() const;
  /// trΣ / B for an update of `effective_batch` samples (the arm's m·K, not the size of its
  /// last window), NaN before the first noise measurement.
  double noisePerUpdate(int64_t effective_batch) const;

  /// What a checkpoint keeps of a recorder: its two averages (raw sums and counts, so that
  /// their debiasing goes on where it was) and the losses of the last W updates.
  struct State {
    double trace = 0;
    int64_t trace_n = 0;
    double g_sq = 0;
    int64_t g_sq_n = 0;
    std::deque<double> losses;
  };
  State state() const;
  void restore(const State& state);

 private:
  NoiseTracker noise_;
  RollingVariance losses_;
};

}  // namespace accumlab
