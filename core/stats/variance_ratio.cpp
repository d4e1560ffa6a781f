// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/variance_ratio.h"

#include <boost/math/distributions/fisher_f.hpp>

#include <algorithm>
#include <cmath>

namespace accumlab {

namespace {

bool positive(double x) { return std::isfinite(x) && x > 0; }

/// The standard normal's 95% quantile: a 90% two-sided interval is ±this many errors.
constexpr double kZ90 = 1.6448536269514722;

}  // namespace

double detrendedVarianceDof(int64_t n) {
  if (n < 2) return kNaN;
  const double nm1 = static_cast<double>(n - 1);
  return 2.0 * nm1 * nm1 / (3.0 * static_cast<double>(n) - 4.0);
}

double varianceDof(int64_t n, double excess_kurtosis) {
  if (n < 2) return kNaN;
  const double g = std::isfinite(excess_kurtosis) ? std::max(0.0, excess_kurtosis) : 0.0;
  return 2.0 / (2.0 / static_cast<double>(n - 1) + g / static_cast<double>(n));
}

RatioInterval varianceRatioInterval(double v1, double dof1, double v2, double dof2, double level) {
  RatioInterval r;
  if (!positive(v1) || !positive(v2) || !positive(dof1) || !positive(dof2) || !(level > 0) ||
      !(level < 1)) {
    return r;
  }
  r.ratio = v1 / v2;
  const boost::math::fisher_f_distribution<double> f(dof1, dof2);
  const double alpha = 1.0 - level;
  r.low = r.ratio / boost::math::quantile(f, 1.0 - alpha / 2.0);
  r.high = r.ratio / boost::math::quantile(f, alpha / 2.0);
  return r;
}

RatioInterval detrendedRatio(double v1, int64_t n1, double v2, int64_t n2) {
  return varianceRatioInterval(v1, detrendedVarianceDof(n1), v2, detrendedVarianceDof(n2));
}

std::optional<ArmVarianceRatio> armVarianceRatio(const std::vector<ArmSummary>& arms) {
  const ArmSummary* no_accum = nullptr;
  const ArmSummary* accum = nullptr;
  for (const ArmSummary& a : arms) {
    if (a.arm == ArmKind::kNoAccum) no_accum = &a;
    if (a.arm == ArmKind::kAccum) accum = &a;
  }
  if (!no_accum || !accum) return std::nullopt;
  ArmVarianceRatio r;
  r.ci = detrendedRatio(no_accum->loss_variance_detrended, no_accum->loss_variance_count,
                        accum->loss_variance_detrended, accum->loss_variance_count);
  r.updates = accum->loss_variance_count;
  r.theory = accum->accum;
  return r;
}

std::optional<PooledProbe> poolProbes(const std::vector<ProbeRecord>& probes) {
  if (probes.empty()) return std::nullopt;
  const ProbeRecord& last = probes.back();
  PooledProbe out;
  out.theory = last.theory;
  out.micro_batch = last.micro_batch;
  out.accum = last.accum;
  // Every probe estimates K at its own weights, so their log-ratios share one centre; a probe
  // at another m or K (a slider change) has another theory and stays out.
  double sw = 0, swx = 0, swxx = 0, swt = 0;
  bool theories = true, one_theory = true;
  for (const ProbeRecord& p : probes) {
    if (p.micro_batch != last.micro_batch || p.accum != last.accum) continue;
    if (!positive(p.ratio) || !positive(p.ci_low) || !positive(p.ci_high) ||
        !(p.ci_high > p.ci_low)) {
      continue;
    }
    // A probe's interval is nearly symmetric in the log: its half-width is kZ90 errors.
    const double se = (std::log(p.ci_high) - std::log(p.ci_low)) / (2.0 * kZ90);
    const double w = 1.0 / (se * se);
    const double x = std::log(p.ratio);
    sw += w;
    swx += w * x;
    swxx += w * x * x;
    // Text's theory depends a little on each probe's pool (weightedProbeTheory).
    theories = theories && positive(p.theory);
    if (theories) swt += w * std::log(p.theory);
    one_theory = one_theory && p.theory == last.theory;
    ++out.probes;
    out.batch_dependent = out.batch_dependent || p.batch_dependent;
  }
  if (out.probes == 0) return out;
  const double mean = swx / sw;
  if (theories && !one_theory) out.theory = std::exp(swt / sw);
  double se = 1.0 / std::sqrt(sw);
  if (out.probes >= 3) {
    // Cochran's Q over its degrees of freedom (the Birge ratio): above 1, the probes scatter
    // more than their intervals say (a batch-dependent model, or probes too small for their
    // F-intervals), and the pooled error grows with it rather than pretending.
    const double q = std::max(0.0, swxx - sw * mean * mean);
    const double birge = q / static_cast<double>(out.probes - 1);
    if (birge > 1) se *= std::sqrt(birge);
  }
  out.ratio = std::exp(mean);
  out.ci_low = std::exp(mean - kZ90 * se);
  out.ci_high = std::exp(mean + kZ90 * se);
  return out;
}

}  // namespace accumlab
