// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPen>
#include <QString>

#include "accumlab/experiment_config.h"

namespace accumlab::ui {

/// One colour per arm, used by every plot, legend, table and report.
QColor armColor(ArmKind arm);
/// The arm's name as shown to people ("no-accum", "accum", "big-batch").
QString armName(ArmKind arm);
/// The arm's name in a plot's legend: a pitfall arm as "✗ sum", short and marked wrong.
QString armLegendName(ArmKind arm);
/// The 1 px pen of an arm's line in one run (big-batch dashed, so that it shows where it lies
/// on accum).
QPen armPen(ArmKind arm);
/// Comparing runs: one colour per run (never an arm's colour) ...
QColor runColor(int run);
/// ... and one line style per arm: no-accum solid, accum dashed, big-batch dotted.
Qt::PenStyle armLineStyle(ArmKind arm);
/// The pen of `arm`'s line of run number `run` in a comparison.
QPen comparePen(ArmKind arm, int run, double width = 1.0);
/// The arm's colour as a #rrggbb string for rich text and HTML.
QString armColorName(ArmKind arm);

}  // namespace accumlab::ui
