// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <qcustomplot.h>

#include <QString>
#include <limits>
#include <vector>

namespace accumlab::ui {

/// The label of a tick on a logarithmic axis: the value it sits at, written so that it reads
/// back as that value: "20", "0.05", "20k", "2·10⁻⁷", "10⁻⁶".
QString logTickLabel(double value);

/// Ticks of a logarithmic axis at values a reader can name: 1, 2, 5, 10, 20, 50 …; every
/// decade or every few decades where the axis spans too many for that; 1 … 9 where it spans
/// less than one step of 1, 2, 5; plus a tick at each marked value (K on a variance ratio,
/// each compared run's K), which replaces the ticks too close to it. Labels come from
/// logTickLabel(). (QCustomPlot's own log ticker falls back to linear ticks on a span under 1.6
/// decades and labelled them in one significant digit: "3·10¹" at 25.)
class LogTicker : public QCPAxisTicker {
 public:
  /// Adds a tick at `value` when it is on the axis; NaN: none.
  void setMarkedValue(double value) { setMarkedValues({value}); }
  /// Adds a tick at each of `values` on the axis (NaNs are left out).
  void setMarkedValues(const std::vector<double>& values);
  /// The first marked value; NaN: none.
  double markedValue() const {
    return marked_.empty() ? std::numeric_limits<double>::quiet_NaN() : marked_.front();
  }

 protected:
  QVector<double> createTickVector(double tick_step, const QCPRange& range) override;
  int getSubTickCount(double) override { return 0; }
  QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override;

 private:
  std::vector<double> marked_;  ///< sorted, finite
};

}  // namespace accumlab::ui
