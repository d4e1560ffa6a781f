// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/log_ticker.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "plots/compact_ticker.h"

namespace accumlab::ui {

namespace {

/// A ladder tick closer to the marked value than this share of the even spacing of the wanted
/// tick count gives way to it (their labels would overlap: 4 and 5 on a short pane of two
/// decades are a few pixels apart).
constexpr double kCrowdShare = 0.5;

/// Ticks beyond the axis's wanted count that a ladder may still draw: labels of one or two
/// characters stay apart at 1, 2, 5 over two decades.
constexpr int kExtraTicks = 2;

/// m·10^e, as the nearest double to the decimal number (10^|e| is exact up to e = 22).
double decimal(double mantissa, int e) {
  const double power = std::pow(10.0, std::abs(e));
  return e >= 0 ? mantissa * power : mantissa / power;
}

/// The values mantissa·10^e in [lo, hi] for every decade e that is a multiple of `every`,
/// ascending.
std::vector<double> ladder(std::initializer_list<double> mantissas, int every, double lo,
                           double hi) {
  std::vector<double> ticks;
  const int first = static_cast<int>(std::floor(std::log10(lo)));
  const int last = static_cast<int>(std::ceil(std::log10(hi)));
  // Rounding of the range's ends must not drop a tick that sits on them.
  const double slack = 1e-9;
  for (int e = first; e <= last; ++e) {
    if (((e % every) + every) % every != 0) continue;
    for (double m : mantissas) {
      const double v = decimal(m, e);
      if (v >= lo * (1 - slack) && v <= hi * (1 + slack)) ticks.push_back(v);
    }
  }
  return ticks;
}

QString superscript(int e) {
  static const QChar kDigits[] = {u'⁰', u'¹', u'²', u'³', u'⁴', u'⁵', u'⁶', u'⁷', u'⁸', u'⁹'};
  QString out = e < 0 ? QString(QChar(u'⁻')) : QString();
  for (QChar c : QString::number(std::abs(e))) out += kDigits[c.digitValue()];
  return out;
}

}  // namespace

QString logTickLabel(double value) {
  const double a = std::fabs(value);
  if (a == 0 || !std::isfinite(value) || (a >= 1e-3 && a < 1e4)) {
    return QString::number(value, 'g', 6);
  }
  if (a >= 1e4 && a < 1e12) {
    // "20k", unless three digits would say another value (m·K = 12,345): then all of them.
    const QString compact = compactNumber(value);
    const QString digits = compact.left(compact.size() - 1);
    const double unit = compact.endsWith('G') ? 1e9 : compact.endsWith('M') ? 1e6 : 1e3;
    if (std::fabs(digits.toDouble() * unit - value) <= 1e-9 * a) return compact;
    return QString::number(value, 'f', 0);
  }
  int e = static_cast<int>(std::floor(std::log10(a)));
  double mantissa = value / decimal(1, e);
  if (std::fabs(std::round(mantissa * 100) / 100) >= 10) {  // 9.999… rounds up a decade
    ++e;
    mantissa = value / decimal(1, e);
  }
  const QString m = QString::number(mantissa, 'g', 3);
  return (m == "1"    ? QString()
          : m == "-1" ? QString("-")
                      : m + QChar(u'·')) +
         "10" + superscript(e);
}

QVector<double> LogTicker::createTickVector(double tick_step, const QCPRange& range) {
  const double lo = range.lower, hi = range.upper;
  if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) {
    return QCPAxisTicker::createTickVector(tick_step, range);
  }
  // A pane with room for one or two labels gets no more (a sub-pane ~50 px high).
  const int wanted = std::max(1, tickCount());
  const size_t limit = wanted == 1 ? 1 : static_cast<size_t>(wanted + kExtraTicks);
  std::vector<double> ticks = ladder({1, 2, 5}, 1, lo, hi);
  if (ticks.size() > limit) {
    // Many decades: every decade, or every second, third … until they fit.
    for (int every = 1; ticks.size() > limit; ++every) ticks = ladder({1}, every, lo, hi);
  } else if (ticks.size() < 2) {
    // Less than a step of 1, 2, 5 (a ratio between 6 and 11): every digit, else linear.
    ticks = ladder({1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, lo, hi);
    // Digits sit close on a short pane: every second or third, so that `wanted` fit.
    if (wanted >= 2 && ticks.size() > static_cast<size_t>(wanted)) {
      const size_t every =
          (ticks.size() + static_cast<size_t>(wanted) - 1) / static_cast<size_t>(wanted);
      std::vector<double> thinned;
      for (size_t i = 0; i < ticks.size(); i += every) thinned.push_back(ticks[i]);
      ticks = thinned;
    }
    if (ticks.size() < 2 || ticks.size() > limit) {
      const QVector<double> linear = QCPAxisTicker::createTickVector(tick_step, range);
      ticks.clear();
      for (double t : linear) {
        if (t > 0) ticks.push_back(t);  // its outer tick below the range may be 0
      }
    }
  }
  std::vector<double> marks;
  for (double m : marked_) {
    if (m >= lo && m <= hi) marks.push_back(m);
  }
  // Room for one label, or several marks (each compared run's K): the marks alone, the values
  // that matter; a ladder tick squeezed between two of them touched its neighbours.
  if (!marks.empty() && (wanted == 1 || marks.size() > 1)) {
    return QVector<double>(marks.begin(), marks.end());
  }
  if (!marks.empty()) {
    // In decades: the span shared evenly by the wanted ticks, and the part of it kept clear.
    const double crowd = kCrowdShare * std::log10(hi / lo) / (std::max(2, tickCount()) + 1);
    ticks.erase(std::remove_if(ticks.begin(), ticks.end(),
                               [&](double t) {
                                 return std::any_of(marks.begin(), marks.end(), [&](double m) {
                                   return std::fabs(std::log10(t / m)) < crowd;
                                 });
                               }),
                ticks.end());
    ticks.insert(ticks.end(), marks.begin(), marks.end());
    std::sort(ticks.begin(), ticks.end());
  }
  return QVector<double>(ticks.begin(), ticks.end());
}

void LogTicker::setMarkedValues(const std::vector<double>& values) {
  marked_.clear();
  for (double v : values) {
    if (std::isfinite(v) && std::find(marked_.begin(), marked_.end(), v) == marked_.end())
      marked_.push_back(v);
  }
  std::sort(marked_.begin(), marked_.end());
}

QString LogTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  return logTickLabel(tick);
}

}  // namespace accumlab::ui
