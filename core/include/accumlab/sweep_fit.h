// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include "accumlab/records.h"

namespace accumlab {

/// Steps to a target against the effective batch B (McCandlish et al. 2018, §2.2):
/// (S/S_min − 1)(E/E_min − 1) = 1 with E = B·S gives S(B) = S_min + E_min/B — a straight line
/// in 1/B. Perfect scaling (S ∝ 1/B) holds while E_min/B dominates; past the critical batch
/// B_crit = E_min/S_min more batch buys little: at B_crit it takes 2·S_min steps and 2·E_min
/// samples.
struct StepsFit {
  double s_min = kNaN;   ///< steps needed at an unlimited batch
  double e_min = kNaN;   ///< samples needed at the smallest batches
  double b_crit = kNaN;  ///< E_min / S_min; NaN when the fit has no positive S_min
  double r2 = kNaN;      ///< weighted coefficient of determination of S
  int points = 0;
};

/// Fits S = S_min + E_min/B by weighted least squares with weights 1/S² (each point's
/// relative error counts the same: steps-to-target scatter in proportion to themselves).
/// Throws InputError with one sentence for fewer than 3 points, sizes that differ, or a
/// batch or step count that is not positive.
StepsFit fitStepsToTarget(const std::vector<double>& batch, const std::vector<double>& steps);

/// The fitted curve at batch B: S_min + E_min/B.
double stepsAt(const StepsFit& fit, double batch);

/// A straight line through (log x, log y), e.g. the per-update loss variance against B_eff
/// (theory: slope −1).
struct SlopeFit {
  double slope = kNaN;
  double intercept = kNaN;  ///< of log y at log x = 0 (natural logarithms)
  double ci_low = kNaN;     ///< the slope's confidence interval (Student t, n − 2 dof)
  double ci_high = kNaN;
  double r2 = kNaN;
  int points = 0;
};

/// Ordinary least squares of ln y on ln x with the `level` confidence interval of the slope.
/// Throws InputError with one sentence for fewer than 3 points, sizes that differ, or an x
/// or y that is not positive, or all x equal.
SlopeFit fitLogLogSlope(const std::vector<double>& x, const std::vector<double>& y,
                        double level = 0.9);

/// Where a series first goes below a target.
struct Crossing {
  double step = kNaN;     ///< interpolated linearly between the steps around the crossing
  double samples = kNaN;  ///< likewise in samples seen
};

/// The first crossing of `values` from above `target` to at or below it, interpolated between
/// the two records around it (the first record counts when it is already at or below the
/// target). NaN values are skipped. Empty when the series never gets there. The three vectors
/// have one entry per record, in order.
std::optional<Crossing> firstCrossingBelow(const std::vector<double>& steps,
                                           const std::vector<double>& samples,
                                           const std::vector<double>& values, double target);

/// Like firstCrossingBelow, for a series that must reach at or above `target` (accuracy).
std::optional<Crossing> firstCrossingAbove(const std::vector<double>& steps,
                                           const std::vector<double>& samples,
                                           const std::vector<double>& values, double target);

}  // namespace accumlab
