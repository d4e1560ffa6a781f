// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/export_actions.h"

#include <QAction>
#include <QInputDialog>
#include <QMenu>
#include <exception>

#include "accumlab/run_exporter.h"
#include "files/file_dialogs.h"
#include "plots/metric_canvas.h"
#include "plots/plot_exporter.h"
#include "plots/plot_grid.h"
#include "report/html_report.h"
#include "runs/run_loader.h"
#include "runs/runs_panel.h"
#include "series/shown_runs.h"

namespace accumlab::ui {

ExportActions::ExportActions(QWidget* window, PlotGrid* plots, const ShownRuns* shown,
                             RunsPanel* runs, std::function<RunStore*()> store)
    : QObject(window),
      window_(window),
      plots_(plots),
      shown_(shown),
      runs_(runs),
      store_(std::move(store)) {
  report_ = new QAction(QIcon::fromTheme("text-html"), tr("HTML &report…"), this);
  report_->setToolTip(
      tr("Save a one-file HTML report of the runs selected in the Runs tab "
         "(or, with none selected, of those shown): config, summary with "
         "ratios, plots and semantics"));
  report_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  connect(report_, &QAction::triggered, this, &ExportActions::exportReport);
}

void ExportActions::populateMenu(QMenu* menu) {
  menu->addAction(report_);
  menu->addSeparator();
  menu->addAction(tr("Selected runs as &CSV…"), this,
                  [this] { exportRuns(runs_->selectedRunIds(), ExportFormat::kCsv); });
  menu->addAction(tr("Selected runs as &JSON…"), this,
                  [this] { exportRuns(runs_->selectedRunIds(), ExportFormat::kJson); });
  QAction* tensorboard = menu->addAction(tr("Selected runs as &TensorBoard logs…"), this, [this] {
    exportRuns(runs_->selectedRunIds(), ExportFormat::kTensorBoard);
  });
  tensorboard->setToolTip(
      tr("Write one TensorBoard log folder per run into a folder you "
         "choose; view them with: tensorboard --logdir FOLDER"));
  menu->addSeparator();
  QMenu* plot_menu = menu->addMenu(tr("&Plot"));
  for (MetricCanvas* canvas : plots_->canvases()) {
    plot_menu->addAction(canvas->definition().title + "…", this,
                         [this, canvas] { exportPlot(canvas); });
  }
  menu->addAction(tr("&All plots…"), this, &ExportActions::exportAllPlots);
}

void ExportActions::exportRuns(const std::vector<int64_t>& run_ids, ExportFormat format) {
  if (run_ids.empty()) {
    emit errorOccurred(tr("Select one or more runs in the Runs panel to export them."));
    return;
  }
  const QString path = askExportPath(format);
  if (!path.isEmpty()) exportRunsTo(run_ids, format, path);
}

QString ExportActions::askExportPath(ExportFormat format) {
  switch (format) {
    case ExportFormat::kCsv:
      return file_dialogs::saveFile(window_, tr("Export runs"), "runs.csv",
                                    tr("CSV files (*.csv)"));
    case ExportFormat::kJson:
      return file_dialogs::saveFile(window_, tr("Export runs"), "runs.json",
                                    tr("JSON files (*.json)"));
    case ExportFormat::kTensorBoard:
      return file_dialogs::folder(window_, tr("Folder for the TensorBoard logs"));
  }
  return QString();
}

bool ExportActions::exportRunsTo(const std::vector<int64_t>& run_ids, ExportFormat format,
                                 const QString& path) {
  RunStore* store = store_();
  if (!store) {
    emit errorOccurred(tr("There is no run database open, so there are no stored runs to export."));
    return false;
  }
  try {
    RunExporter(*store).write(run_ids, format, path.toStdString());
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
    return false;
  }
  emit exported(path);
  return true;
}

void ExportActions::exportPlot(MetricCanvas* canvas) {
  const QString path =
      file_dialogs::saveFile(window_, tr("Export plot"), canvas->definition().id + ".png",
                             tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
  if (!path.isEmpty()) exportPlotTo(canvas, path);
}

bool ExportActions::overwritesStore(const QString& path) {
  RunStore* store = store_();
  if (!store || !RunStore::wouldOverwrite(store->path(), path.toStdString())) return false;
  emit errorOccurred(tr("%1 is the run database; choose another file.").arg(path));
  return true;
}

bool ExportActions::exportPlotTo(MetricCanvas* canvas, const QString& path) {
  if (overwritesStore(path)) return false;
  QString error;
  if (!exportCanvas(canvas, path, &error)) {
    emit errorOccurred(error);
    return false;
  }
  emit exported(path);
  return true;
}

void ExportActions::exportAllPlots() {
  bool ok = false;
  const QString format = QInputDialog::getItem(window_, tr("Export all plots"), tr("Format:"),
                                               {"png", "svg", "pdf"}, 0, false, &ok);
  if (!ok) return;
  const QString folder = file_dialogs::folder(window_, tr("Folder for the plots"));
  if (!folder.isEmpty()) exportAllPlotsTo(folder, format);
}

bool ExportActions::exportAllPlotsTo(const QString& folder, const QString& format) {
  QString error;
  if (!exportAllCanvases(plots_->canvases(), folder, format, &error)) {
    emit errorOccurred(error);
    return false;
  }
  emit exported(folder);
  return true;
}

void ExportActions::exportReport() {
  const QString path = file_dialogs::saveFile(
      window_, tr("Save HTML report"), "accumlab-report.html", tr("HTML files (*.html *.htm)"));
  if (!path.isEmpty()) exportReportTo(path);
}

bool ExportActions::exportReportTo(const QString& path) {
  // The runs selected in the Runs tab, when there are any (what the user chose, not what
  // happens to be plotted: an earlier comparison may still be on screen); else those shown.
  const std::vector<int64_t> selected = runs_->selectedRunIds();
  RunStore* store = store_();
  if ((selected.empty() || !store) && shown_->runs().empty()) {
    emit errorOccurred(
        tr("There is nothing to report yet: run an experiment or open stored runs."));
    return false;
  }
  if (overwritesStore(path)) return false;
  QString error;
  bool ok = false;
  try {
    ok = !selected.empty() && store
             ? writeHtmlReport(loadRuns(*store, selected), path, &error)
             : writeHtmlReport(shown_->copies(), captureCanvases(plots_->canvases()), path, &error);
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  if (!ok) {
    emit errorOccurred(error);
    return false;
  }
  emit exported(path);
  return true;
}

}  // namespace accumlab::ui
