// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <qcustomplot.h>
#include <QString>

namespace accumlab::ui {

/// A tick label that stays short: 100k, 250k, 1.2M, 3G; below 10,000 as QCustomPlot writes
/// it. Long labels ("100000200000300000" on a narrow axis) ran into each other.
QString compactNumber(double v);

/// QCustomPlot's linear ticker with compactNumber() labels (linear axes only).
class CompactTicker : public QCPAxisTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override;
};

}  // namespace accumlab::ui
