// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/compact_ticker.h"

#include <cmath>

namespace accumlab::ui {

QString compactNumber(double v) {
  const double a = std::fabs(v);
  const auto scaled = [&](double unit, const char* suffix) {
    // Three significant digits at most, no trailing zeros: 1.25M, 120k, 2G.
    return QString::number(v / unit, 'g', 3) + QLatin1String(suffix);
  };
  if (a >= 1e9) return scaled(1e9, "G");
  if (a >= 1e6) return scaled(1e6, "M");
  if (a >= 1e4) return scaled(1e3, "k");
  return QString();
}

QString CompactTicker::getTickLabel(double tick, const QLocale& locale, QChar format,
                                    int precision) {
  const QString compact = compactNumber(tick);
  return compact.isEmpty() ? QCPAxisTicker::getTickLabel(tick, locale, format, precision) : compact;
}

}  // namespace accumlab::ui
