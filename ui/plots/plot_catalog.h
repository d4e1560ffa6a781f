// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include <QString>

#include "accumlab/records.h"

namespace accumlab::ui {

/// What the x-axis of every plot counts.
enum class XAxisMode { kSamples, kSteps, kWallTime };

/// How a series is drawn.
enum class SeriesLook {
  kNormal,     ///< 1 px, arm colour
  kFaint,      ///< raw values under a smoothed line: light arm colour
  kBold,       ///< the smoothed line: 2 px
  kReference,  ///< grey dotted reference (e.g. the effective batch)
  kMarkers,    ///< rare points, no line: a marker each in arm colour
};

/// One line per arm (or only for `only_arm`) taken from step or eval records.
struct SeriesDef {
  QString id;      ///< stable name, used in exports ("loss_raw")
  QString legend;  ///< appended to the arm name in the legend; empty = the arm name only
  double (*step_value)(const StepRecord&) = nullptr;  ///< set for step series
  double (*eval_value)(const EvalRecord&) = nullptr;  ///< set for eval series
  bool smoothed = false;  ///< pass through the debiased EMA of the smoothing slider
  int pane = 0;           ///< index into CanvasDef::panes
  SeriesLook look = SeriesLook::kNormal;
  std::optional<ArmKind> only_arm;  ///< draw for this arm only
  bool pitfalls_too = false;        ///< with only_arm: also for every pitfall arm

  /// Whether this series has a line for `arm`.
  bool drawnFor(ArmKind arm) const {
    return !only_arm || *only_arm == arm || (pitfalls_too && isPitfall(arm));
  }
};

/// One stacked axis rectangle of a canvas.
struct PaneDef {
  QString y_label;
  bool log_y = false;        ///< always logarithmic
  bool follows_log = false;  ///< logarithmic when the "log y" toggle is on
  double stretch = 1.0;      ///< its share of the canvas's height against the other panes'
};

/// One plot (a titled canvas with 1–2 panes sharing the x-axis) and its explanation.
struct CanvasDef {
  QString id;  ///< file-name friendly ("loss", "variance", …)
  QString title;
  QString explanation;  ///< rich text: what it shows, in plain words, with the formula
  std::vector<PaneDef> panes;
  std::vector<SeriesDef> series;
};

/// The plots of the main window and the report, in display order.
const std::vector<CanvasDef>& plotCatalog();
/// The x-axis label of `mode`.
QString xAxisLabel(XAxisMode mode);
/// The x value of a record under `mode`.
double xOf(const StepRecord& r, XAxisMode mode);
double xOf(const EvalRecord& r, XAxisMode mode);
double xOf(const ProbeRecord& r, XAxisMode mode);

}  // namespace accumlab::ui
