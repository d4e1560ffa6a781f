// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "accumlab/records.h"

namespace accumlab {

/// A ratio of two variances with its confidence interval.
struct RatioInterval {
  double ratio = kNaN;
  double low = kNaN;
  double high = kNaN;
};

/// Degrees of freedom of the detrended (successive-difference) variance of n independent
/// normal values: its variance is σ⁴(3n−4)/(n−1)², which a scaled χ² matches with
/// ν = 2(n−1)²/(3n−4) (about 2n/3: the price of ignoring the trend). NaN for n < 2.
double detrendedVarianceDof(int64_t n);

/// Degrees of freedom of the sample variance of n independent values with excess kurtosis
/// γ₂ (0 for normal values): Var(s²)/σ⁴ = 2/(n−1) + γ₂/n, matched by a χ² with
/// ν = 2 / (2/(n−1) + γ₂/n). Heavy tails make a variance estimate less certain than n−1
/// degrees of freedom say. γ₂ below 0 is treated as 0. NaN for n < 2.
double varianceDof(int64_t n, double excess_kurtosis = 0.0);

/// The ratio v1/v2 of two independent variance estimates with dof1 and dof2 degrees of
/// freedom, and the `level` (e.g. 0.9) confidence interval of the true ratio σ₁²/σ₂² from
/// the F-distribution: [r / F(1−α/2; ν₁, ν₂), r / F(α/2; ν₁, ν₂)]. NaN fields when an input
/// is not a positive finite number.
RatioInterval varianceRatioInterval(double v1, double dof1, double v2, double dof2,
                                    double level = 0.9);

/// The across-arm ratio of two arms' detrended per-update loss variances, each over its
/// last n1, n2 updates, with its 90% interval (normal-theory degrees of freedom).
RatioInterval detrendedRatio(double v1, int64_t n1, double v2, int64_t n2);

/// The variance ratio the arms show: no-accum's detrended per-update loss variance over
/// accum's, with its 90% interval, against theory K.
struct ArmVarianceRatio {
  RatioInterval ci;
  int64_t updates = 0;  ///< accum's updates the variances are taken over
  int64_t theory = 0;   ///< accum's K
};

/// The ratio of the no-accum and accum summaries in `arms`; nullopt unless both are there.
std::optional<ArmVarianceRatio> armVarianceRatio(const std::vector<ArmSummary>& arms);

/// The run's fixed-weight probes pooled into one estimate: the inverse-variance weighted
/// mean of the log-ratios of the probes at the last probe's m and K (each probe's variance
/// read from its own 90% interval), with its 90% interval, widened by the probes' excess
/// scatter when there is more than chance explains (three probes or more). nullopt without
/// a probe; NaN fields when no probe has a finite interval.
std::optional<PooledProbe> poolProbes(const std::vector<ProbeRecord>& probes);

}  // namespace accumlab
