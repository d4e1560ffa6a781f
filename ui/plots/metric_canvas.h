// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QLabel>
#include <QVector>
#include <QWidget>
#include <vector>

#include "accumlab/experiment_config.h"
#include "plots/plot_catalog.h"

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QCPErrorBars;
class QCPRange;
class QCPAbstractItem;
class QToolButton;

namespace accumlab::ui {

/// One titled plot of the catalog: a QCustomPlot with stacked panes sharing the x-axis, a
/// legend, an explanation button, hover read-out and vertical event markers. Fed
/// incrementally (addPoints + refresh), never rebuilt per update. GUI thread.
class MetricCanvas : public QWidget {
  Q_OBJECT

 public:
  explicit MetricCanvas(const CanvasDef& def, QWidget* parent = nullptr);

  const CanvasDef& definition() const { return def_; }
  /// Appends points (sorted by x, after the existing ones) to the line of `series` (index
  /// into the definition) for `arm` of run `source`; creates the line on first use.
  /// NaN values and, on logarithmic panes, values ≤ 0 are skipped.
  void addPoints(int source, ArmKind arm, int series, const QString& run_label,
                 const QVector<double>& x, const QVector<double>& y);
  /// Appends points with vertical interval bars [lo, hi] to the marker series `name` of
  /// run `source` on `pane` (created on first use, in `color`). Points with a non-finite
  /// or, on logarithmic panes, non-positive value are skipped.
  void addIntervalPoints(int source, int pane, const QString& name, const QColor& color,
                         const QVector<double>& x, const QVector<double>& y,
                         const QVector<double>& lo, const QVector<double>& hi);
  /// Draws a labelled vertical line at `x` across every pane.
  void addMarker(double x, const QString& label, const QColor& color);
  /// Removes every line and marker.
  void clear();
  /// Sets the x-axis title of the bottom pane.
  void setXLabel(const QString& label);
  /// Sets the y-axis title of `pane` (the definition's until then).
  void setYLabel(int pane, const QString& label);
  /// The y-axis title of `pane`.
  QString yLabel(int pane) const;
  /// Switches the panes that follow the log toggle between linear and logarithmic y.
  void setLogY(bool log);
  /// Puts a tick at `value` on pane `pane` while it is logarithmic (K on the variance ratio,
  /// m·K on the batch sizes); NaN: none.
  void markValue(int pane, double value);
  /// Sets the text next to the title (e.g. a measured ratio); rich text allowed. `more`
  /// joins it in the tooltip (what a short read-out leaves out).
  void setReadout(const QString& html, const QString& more = QString());
  /// The text next to the title.
  QString readout() const { return readout_->text(); }
  /// The read-out's tooltip: its text and what it leaves out.
  QString readoutTip() const { return readout_->toolTip(); }
  /// Whether the arms' own lines are named in a key outside the canvas (the window's one key
  /// for all plots) instead of in the canvas's legend, which then keeps only the lines that
  /// are not an arm's (theory K, m·K, the probe) and the arms' named extra series.
  void setArmKeyOutside(bool outside);
  bool armKeyOutside() const { return arm_key_outside_; }
  /// Whether the owner fits the axes to the data on each update (off once the user zooms).
  void setFollow(bool follow);
  bool following() const { return follow_; }
  /// Shows the x range `range` on every pane without emitting xRangeChanged.
  void setXRange(const QCPRange& range);
  /// The x span of all points drawn; false when there are none.
  bool xBounds(double* lo, double* hi) const;
  /// Fits the axes to the data now.
  void fitToData();
  /// Schedules a replot (coalesced by Qt).
  void refresh();
  /// The number of points drawn by all lines.
  int pointCount() const;
  QCustomPlot* plot() const { return plot_; }

 signals:
  /// The user panned or zoomed the x-axis of this canvas.
  void xRangeChanged(const QCPRange& range);
  /// The user started interacting (drag, wheel): following stops.
  void userInteracted();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  struct Bounds {
    double lo = 0, hi = 0;
    bool valid = false;
    void include(double v);
  };
  QCPGraph* graphFor(int source, ArmKind arm, int series, const QString& run_label);
  /// Whether `g` is an arm's own line that the legend names (not a reference, not faint).
  bool isArmEntry(const QCPGraph* g) const;
  /// Passes a wheel turn without Ctrl to the scroll area around the canvas: the page
  /// scrolls, and only Ctrl+wheel zooms the plot.
  bool forwardWheel(QEvent* event);
  bool paneIsLog(int pane) const;
  void applyAxisScales();
  /// Lays the legend out in as few columns as fit its pane (hidden when none does).
  void fitLegend();
  /// The axes', legend's and markers' fonts, from the widget's font.
  void applyFonts();
  QFont markerFont() const;
  void showHover(const QPoint& pos);
  void onAxisRangeChanged(const QCPRange& range);

  CanvasDef def_;
  QCustomPlot* plot_;
  QLabel* title_;
  QLabel* readout_;
  QToolButton* info_;
  std::vector<QCPAxisRect*> panes_;
  QHash<quint32, QCPGraph*> graphs_;
  QHash<QString, QCPGraph*> interval_graphs_;    ///< marker series, by source and name
  QHash<QString, QCPErrorBars*> interval_bars_;  ///< their interval bars, same keys
  Bounds x_bounds_;
  std::vector<Bounds> y_bounds_;  ///< per pane, of the values drawn
  std::vector<double> marks_;     ///< per pane, the value markValue() ticks; NaN: none
  bool log_toggle_ = false;
  bool arm_key_outside_ = false;
  bool follow_ = true;
  bool syncing_ = false;  ///< set while ranges are changed by code, not by the user
  QVector<QCPAbstractItem*> markers_;
};

}  // namespace accumlab::ui
