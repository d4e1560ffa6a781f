#include "accumlab/variance_ratio.h"

#include <boost/math/distributions/fisher_f.hpp>

#include <algorithm>
#include <cmath>

namespace accumlab {

namespace {

bool positive(double x) { return std::isfinite(x) && x > 0; }

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

RatioInterval varianceRatioInterval(double v1, double dof1, double v2, double dof2,
                                    double level) {
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

}  // namespace accumlab
