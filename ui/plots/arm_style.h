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
/// The pen of an arm's line; `source` > 0 (compare mode) selects a dash pattern per run.
QPen armPen(ArmKind arm, int source, double width = 1.0, int alpha = 255);
/// The arm's colour as a #rrggbb string for rich text and HTML.
QString armColorName(ArmKind arm);

}  // namespace accumlab::ui
