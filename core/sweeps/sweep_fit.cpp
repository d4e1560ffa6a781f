// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/sweep_fit.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "accumlab/input_error.h"

namespace accumlab {

namespace {

void requirePoints(size_t n, size_t other, const char* what) {
  if (n != other) {
    throw InputError(std::string(what) + " needs one y per x, got " + std::to_string(n) + " and " +
                     std::to_string(other));
  }
  if (n < 3) {
    throw InputError(std::string(what) + " needs at least 3 points, got " + std::to_string(n));
  }
}

/// Weighted least squares of y = a + b·x; returns {a, b, weighted R²}.
struct Line {
  double a, b, r2;
};

Line weightedLine(const std::vector<double>& x, const std::vector<double>& y,
                  const std::vector<double>& w) {
  double sw = 0, sx = 0, sy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sw += w[i];
    sx += w[i] * x[i];
    sy += w[i] * y[i];
  }
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += w[i] * (x[i] - mx) * (x[i] - mx);
    sxy += w[i] * (x[i] - mx) * (y[i] - my);
    syy += w[i] * (y[i] - my) * (y[i] - my);
  }
  Line l;
  l.b = sxx > 0 ? sxy / sxx : kNaN;
  l.a = my - l.b * mx;
  double ss_res = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (l.a + l.b * x[i]);
    ss_res += w[i] * r * r;
  }
  l.r2 = syy > 0 ? 1.0 - ss_res / syy : 1.0;
  return l;
}

template <typename Reached>
std::optional<Crossing> firstCrossing(const std::vector<double>& steps,
                                      const std::vector<double>& samples,
                                      const std::vector<double>& values, double target,
                                      Reached reached) {
  const size_t n = std::min({steps.size(), samples.size(), values.size()});
  bool have_previous = false;
  size_t previous = 0;
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) continue;
    if (reached(values[i])) {
      if (!have_previous) return Crossing{steps[i], samples[i]};
      // Linear between the last record above the target and this one.
      const double v0 = values[previous], v1 = values[i];
      const double t = v1 != v0 ? (target - v0) / (v1 - v0) : 1.0;
      return Crossing{steps[previous] + t * (steps[i] - steps[previous]),
                      samples[previous] + t * (samples[i] - samples[previous])};
    }
    have_previous = true;
    previous = i;
  }
  return std::nullopt;
}

}  // namespace

StepsFit fitStepsToTarget(const std::vector<double>& batch, const std::vector<double>& steps) {
  requirePoints(batch.size(), steps.size(), "the steps-to-target fit");
  std::vector<double> x, w;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!(batch[i] > 0) || !(steps[i] > 0)) {
      throw InputError("the steps-to-target fit needs positive batches and step counts, got B = " +
                       std::to_string(batch[i]) + ", S = " + std::to_string(steps[i]));
    }
    x.push_back(1.0 / batch[i]);
    w.push_back(1.0 / (steps[i] * steps[i]));
  }
  const Line l = weightedLine(x, steps, w);
  if (std::isnan(l.b))
    throw InputError("the steps-to-target fit needs at least two different batch sizes");
  StepsFit f;
  f.s_min = l.a;
  f.e_min = l.b;
  f.b_crit = l.a > 0 && l.b > 0 ? l.b / l.a : kNaN;
  f.r2 = l.r2;
  f.points = static_cast<int>(batch.size());
  return f;
}

double stepsAt(const StepsFit& fit, double batch) { return fit.s_min + fit.e_min / batch; }

SlopeFit fitLogLogSlope(const std::vector<double>& x, const std::vector<double>& y, double level) {
  requirePoints(x.size(), y.size(), "the log-log fit");
  std::vector<double> lx, ly;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0) || !(y[i] > 0) || !std::isfinite(x[i]) || !std::isfinite(y[i])) {
      throw InputError("the log-log fit needs positive values, got (" + std::to_string(x[i]) +
                       ", " + std::to_string(y[i]) + ")");
    }
    lx.push_back(std::log(x[i]));
    ly.push_back(std::log(y[i]));
  }
  const std::vector<double> ones(lx.size(), 1.0);
  const Line l = weightedLine(lx, ly, ones);
  if (std::isnan(l.b)) throw InputError("the log-log fit needs at least two different x values");
  const size_t n = lx.size();
  double mx = 0;
  for (double v : lx) mx += v;
  mx /= static_cast<double>(n);
  double sxx = 0, ss_res = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (lx[i] - mx) * (lx[i] - mx);
    const double r = ly[i] - (l.a + l.b * lx[i]);
    ss_res += r * r;
  }
  const double dof = static_cast<double>(n - 2);
  const double se = std::sqrt(ss_res / dof / sxx);
  const boost::math::students_t t(dof);
  const double q = boost::math::quantile(t, 0.5 + level / 2.0);
  SlopeFit f;
  f.slope = l.b;
  f.intercept = l.a;
  f.ci_low = l.b - q * se;
  f.ci_high = l.b + q * se;
  f.r2 = l.r2;
  f.points = static_cast<int>(n);
  return f;
}

std::optional<Crossing> firstCrossingBelow(const std::vector<double>& steps,
                                           const std::vector<double>& samples,
                                           const std::vector<double>& values, double target) {
  return firstCrossing(steps, samples, values, target, [target](double v) { return v <= target; });
}

std::optional<Crossing> firstCrossingAbove(const std::vector<double>& steps,
                                           const std::vector<double>& samples,
                                           const std::vector<double>& values, double target) {
  return firstCrossing(steps, samples, values, target, [target](double v) { return v >= target; });
}

}  // namespace accumlab
