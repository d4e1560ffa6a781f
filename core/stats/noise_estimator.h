// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

#include "accumlab/smoothing.h"

namespace accumlab {

/// One pair of unbiased estimates from gradients at two batch sizes.
struct NoiseSample {
  double trace_sigma = 0;  ///< tr Σ, the per-sample gradient variance summed over parameters
  double g_sq = 0;         ///< |G|², the squared norm of the true gradient
};

/// McCandlish et al. (2018, App. A): from E|g_B|² = |G|² + trΣ/B at B_small < B_big,
///   |G|² ≈ (B_big|g_big|² − B_small|g_small|²) / (B_big − B_small)
///   trΣ  ≈ (|g_small|² − |g_big|²) / (1/B_small − 1/B_big).
NoiseSample estimateNoise(double b_small, double g_small_sq, double b_big, double g_big_sq);

/// Keeps debiased EMAs of the two estimates (each estimate alone is very noisy, and their
/// ratio is biased unless numerator and denominator are smoothed separately).
/// Owned by one arm on the training thread.
class NoiseTracker {
 public:
  explicit NoiseTracker(double smoothing) : trace_(smoothing), g_sq_(smoothing) {}
  void add(const NoiseSample& s) {
    trace_.add(s.trace_sigma);
    g_sq_.add(s.g_sq);
  }
  double traceSigma() const { return trace_.value(); }
  double gSq() const { return g_sq_.value(); }
  /// B_simple = EMA(trΣ) / EMA(|G|²): the batch size beyond which noise stops dominating.
  double bSimple() const { return trace_.value() / g_sq_.value(); }
  /// trΣ / B_eff: the expected squared noise of one update of `b_eff` samples.
  double noisePerUpdate(double b_eff) const { return trace_.value() / b_eff; }
  bool empty() const { return trace_.count() == 0; }
  /// The two averages, for a checkpoint.
  DebiasedEma& traceEma() { return trace_; }
  DebiasedEma& gSqEma() { return g_sq_; }
  const DebiasedEma& traceEma() const { return trace_; }
  const DebiasedEma& gSqEma() const { return g_sq_; }

 private:
  DebiasedEma trace_;
  DebiasedEma g_sq_;
};

}  // namespace accumlab
