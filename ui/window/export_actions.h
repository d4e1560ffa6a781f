// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <functional>
#include <vector>

#include "accumlab/run_exporter.h"
#include "accumlab/run_store.h"

class QAction;
class QMenu;
class QWidget;

namespace accumlab::ui {

class MetricCanvas;
class PlotGrid;
class RunsPanel;
class ShownRuns;

/// The Export menu and toolbar actions: selected runs to CSV/JSON or a folder of TensorBoard
/// logs (the store's exporters), one plot or all plots to PNG/SVG/PDF, and the one-file HTML
/// report of the runs shown (ShownRuns). The *To() functions do the work without dialogs (for
/// TensorBoard logs `path` is the folder). GUI thread.
class ExportActions : public QObject {
  Q_OBJECT

 public:
  /// `plots` gives the images, `shown` the runs a report without a selection is about; none
  /// is owned, all must outlive the actions.
  ExportActions(QWidget* window, PlotGrid* plots, const ShownRuns* shown, RunsPanel* runs,
                std::function<RunStore*()> store);

  /// Fills `menu` with the export actions.
  void populateMenu(QMenu* menu);
  /// The HTML report action (for the toolbar).
  QAction* reportAction() const { return report_; }
  /// Asks for a file (a folder for TensorBoard logs) and exports `run_ids` in `format`.
  void exportRuns(const std::vector<int64_t>& run_ids, ExportFormat format);
  /// Asks for a file and exports one plot.
  void exportPlot(MetricCanvas* canvas);

  bool exportRunsTo(const std::vector<int64_t>& run_ids, ExportFormat format, const QString& path);
  bool exportPlotTo(MetricCanvas* canvas, const QString& path);
  bool exportAllPlotsTo(const QString& folder, const QString& format);
  bool exportReportTo(const QString& path);

 signals:
  void errorOccurred(const QString& message);
  /// A file or folder was written (for the status bar).
  void exported(const QString& path);

 private:
  /// True (after reporting it) when writing `path` would overwrite the open run database.
  bool overwritesStore(const QString& path);
  /// The file, or for TensorBoard logs the folder, to export runs to; empty when cancelled.
  QString askExportPath(ExportFormat format);
  void exportAllPlots();
  void exportReport();

  QWidget* window_;
  PlotGrid* plots_;
  const ShownRuns* shown_;
  RunsPanel* runs_;
  std::function<RunStore*()> store_;
  QAction* report_;
};

}  // namespace accumlab::ui
