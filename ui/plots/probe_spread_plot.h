// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QString>

#include "accumlab/records.h"

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QCPLayoutGrid;

namespace accumlab::ui {

/// The picture a teacher draws beside the variance ratio: at one set of frozen weights (the
/// latest probe), the histogram of the micro-batch mean losses (m) over that of the window
/// mean losses (m·K) on the same x-axis, each with its standard deviation marked, and in
/// words: the windows' spread is the micro-batches' ÷ √K. Lives in a column of its own to
/// the right of a canvas's panes, in the canvas's QCustomPlot, so exported images and the
/// report show it too. GUI thread.
class ProbeSpreadPlot {
 public:
  /// Draws into `plot` (not owned; the histogram's layout elements belong to it).
  explicit ProbeSpreadPlot(QCustomPlot* plot);

  /// Shows `probe`'s histogram; hides the column when it has none (an older store).
  void show(const ProbeRecord& probe);
  /// Hides the column (no probe, or runs compared).
  void hide();
  /// Whether the column is shown.
  bool visible() const;

 private:
  void build();
  QCPGraph* graph(QCPGraph*& slot, const QColor& color, int width);

  QCustomPlot* plot_;
  QCPAxisRect* rect_ = nullptr;
  QCPLayoutGrid* body_ = nullptr;   ///< under the legend strip: the panes' cell, the histogram
  QCPLayoutGrid* panes_ = nullptr;  ///< the canvas's panes, moved into one cell
  // Graphs are the plot's; a canvas's clear() deletes them, so each is checked before use.
  QCPGraph* micro_ = nullptr;
  QCPGraph* window_ = nullptr;
  QCPGraph* micro_sd_ = nullptr;
  QCPGraph* window_sd_ = nullptr;
};

/// The words under the histogram: each spread, and that the windows' is the micro-batches'
/// ÷ √K (with the value that predicts), for `probe`.
QString spreadWords(const ProbeRecord& probe);

}  // namespace accumlab::ui
