// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>

namespace accumlab {

/// TensorBoard's debiased EMA: last = s·last + (1−s)·x; shown = last / (1 − s^n).
/// NaN inputs are skipped. Owned by one thread.
class DebiasedEma {
 public:
  explicit DebiasedEma(double smoothing) : s_(smoothing) {}
  /// Adds x and returns the debiased value.
  double add(double x) {
    if (std::isnan(x)) return value();
    last_ = s_ * last_ + (1.0 - s_) * x;
    ++n_;
    return value();
  }
  /// The debiased value, NaN before the first sample.
  double value() const {
    if (n_ == 0) return std::nan("");
    const double debias = 1.0 - std::pow(s_, static_cast<double>(n_));
    return debias > 0 ? last_ / debias : last_;
  }
  int64_t count() const { return n_; }
  /// The undebiased average, for a checkpoint; restore() puts it back with count().
  double raw() const { return last_; }
  void restore(double raw, int64_t count) {
    last_ = raw;
    n_ = count;
  }

 private:
  double s_;
  double last_ = 0.0;
  int64_t n_ = 0;
};

/// Unbiased sample variance of the last W values (Welford over a sliding window would
/// drift; W is small, so it is recomputed from the window). Owned by one thread.
class RollingVariance {
 public:
  explicit RollingVariance(int64_t window) : window_(window < 2 ? 2 : window) {}
  void add(double x) {
    if (std::isnan(x)) return;
    values_.push_back(x);
    if (static_cast<int64_t>(values_.size()) > window_) values_.pop_front();
  }
  /// Variance of the values held, NaN with fewer than two.
  double variance() const {
    const auto n = values_.size();
    if (n < 2) return std::nan("");
    double mean = 0;
    for (double v : values_) mean += v;
    mean /= static_cast<double>(n);
    double ss = 0;
    for (double v : values_) ss += (v - mean) * (v - mean);
    return ss / static_cast<double>(n - 1);
  }
  /// Detrended variance: the mean square successive difference
  /// Σ(x_t − x_{t−1})² / (2(n−1)) of the values held. A trend that moves by δ per value adds
  /// only δ²/2 to it (the plain variance grows with δ²n²/12), so the noise around a slowly
  /// changing level is what it measures. NaN with fewer than two values.
  double detrendedVariance() const {
    const auto n = values_.size();
    if (n < 2) return std::nan("");
    double ss = 0;
    for (size_t i = 1; i < n; ++i)
      ss += (values_[i] - values_[i - 1]) * (values_[i] - values_[i - 1]);
    return ss / (2.0 * static_cast<double>(n - 1));
  }
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  double mean() const {
    if (values_.empty()) return std::nan("");
    double m = 0;
    for (double v : values_) m += v;
    return m / static_cast<double>(values_.size());
  }
  bool full() const { return static_cast<int64_t>(values_.size()) == window_; }
  /// The values held, oldest first (for a checkpoint); restore() puts them back.
  const std::deque<double>& values() const { return values_; }
  void restore(const std::deque<double>& values) { values_ = values; }

 private:
  int64_t window_;
  std::deque<double> values_;
};

}  // namespace accumlab
