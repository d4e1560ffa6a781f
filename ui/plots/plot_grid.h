// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "plots/plot_catalog.h"
#include "series/run_data.h"

class QCheckBox;
class QGridLayout;
class QComboBox;
class QLabel;
class QSlider;

namespace accumlab::ui {

class MetricCanvas;
class PlotFeed;
class ShownRuns;

/// The grid of plots with their shared controls: x-axis mode, smoothing, log y, reset view.
/// Draws the runs a ShownRuns holds (the live run as it grows, or stored runs: one, or
/// several overlaid in compare mode) and redraws when they change; it owns no run. GUI thread.
class PlotGrid : public QWidget {
  Q_OBJECT

 public:
  /// The smoothing the plots start with: 0.9 keeps no-accum's bold line readable while the
  /// faint raw lines still show its noise.
  static constexpr double kDefaultSmoothing = 0.9;

  /// Draws what `shown` holds (not owned; it must outlive the grid): all of it when it
  /// changes, and of a live run each batch only what is new.
  explicit PlotGrid(const ShownRuns* shown, QWidget* parent = nullptr);
  ~PlotGrid() override;

  /// The key above the plots while runs are compared: one colour per run, one line style per
  /// arm (the plots' own legends may not fit on a small screen). Empty otherwise.
  QString compareKey() const;
  /// The key above the plots, one for all of them: each arm's colour and line for one run;
  /// comparing, each run's colour and each arm's line style. Empty when nothing is shown.
  QString armKey() const;
  /// The plots, in catalog order.
  const std::vector<MetricCanvas*>& canvases() const { return canvases_; }

  XAxisMode xAxisMode() const { return x_mode_; }
  void setXAxisMode(XAxisMode mode);
  /// The EMA factor s in [0, 0.999).
  double smoothing() const { return smoothing_; }
  void setSmoothing(double s);
  bool logY() const { return log_y_; }
  void setLogY(bool log);
  /// Writes `text` on the loss plot of the live run (while it is shown), in `arm`'s colour,
  /// where that arm is now (a hint next to its curve).
  void addNote(ArmKind arm, const QString& text);
  /// Shows only the plots with these catalog ids, in catalog order and two columns (the
  /// Presentation mode's 2×2); an empty list shows all of them in the usual grid.
  void setShownPlots(const QStringList& ids);
  /// Fits every plot to its data and follows new data again.
  void resetView();
  /// Redraws every plot now (before grabbing the window).
  void replotNow();
  /// Milliseconds one redraw of all plots takes (QCustomPlot's average of recent replots).
  double replotCostMs() const;
  /// Points held by all plots together.
  int pointCount() const;

 signals:
  /// The x-axis mode, smoothing or log toggle changed (for the settings).
  void viewOptionsChanged();

 protected:
  /// Two columns of plots on a narrow window, three on a wide one.
  void resizeEvent(QResizeEvent* event) override;

 private:
  void onShownChanged();
  void rebuild();
  void updateKey();

  std::vector<MetricCanvas*> canvases_;
  const ShownRuns* shown_;          ///< what is plotted
  std::unique_ptr<PlotFeed> feed_;  ///< draws shown_'s runs into canvases_
  XAxisMode x_mode_ = XAxisMode::kSamples;
  double smoothing_ = kDefaultSmoothing;
  bool log_y_ = false;
  QComboBox* x_combo_;
  QSlider* smoothing_slider_;
  QLabel* smoothing_label_;
  QCheckBox* log_check_;
  size_t keyed_arms_ = 0;  ///< the arms of the first run shown when the key was written
  QLabel* compare_key_;    ///< the arms' key; comparing, which colour is which run too
  QGridLayout* grid_;
  QStringList shown_ids_;  ///< setShownPlots()'s choice (empty: all)
  int columns_ = 0;        ///< of the grid as laid out
};

}  // namespace accumlab::ui
