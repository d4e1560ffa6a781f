// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plot_exporter.h"

#include <qcustomplot.h>
#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QSvgGenerator>
#include <memory>

#include "plots/metric_canvas.h"
#include "plots/plot_feed.h"
#include "plots/plot_grid.h"

namespace accumlab::ui {

bool exportCanvas(MetricCanvas* canvas, const QString& path, QString* error, int width,
                  int height) {
  // On screen the title is a label above the plot; a file gets it inside the image, so that
  // the file says what it shows (the axes already carry their labels).
  QCustomPlot* plot = canvas->plot();
  plot->plotLayout()->insertRow(0);
  QFont bold = canvas->font();
  bold.setBold(true);
  auto* title = new QCPTextElement(plot, canvas->definition().title, bold);
  plot->plotLayout()->addElement(0, 0, title);
  const bool ok = exportPlot(plot, canvas->definition().title, path, error, width, height);
  plot->plotLayout()->remove(title);
  plot->plotLayout()->simplify();
  plot->replot(QCustomPlot::rpQueuedReplot);
  return ok;
}

bool exportPlot(QCustomPlot* plot, const QString& title, const QString& path, QString* error,
                int width, int height) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  bool ok = false;
  if (suffix == "png") {
    ok = plot->savePng(path, width, height);
  } else if (suffix == "pdf") {
    ok = plot->savePdf(path, width, height);
  } else if (suffix == "svg") {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(QSize(width, height));
    svg.setViewBox(QRect(0, 0, width, height));
    svg.setTitle(title);
    QCPPainter painter;
    if (painter.begin(&svg)) {
      plot->toPainter(&painter, width, height);
      ok = painter.end();
    }
  } else {
    *error = QObject::tr("Cannot export a plot to %1: the name must end in .png, .svg or .pdf.")
                 .arg(path);
    return false;
  }
  if (!ok || !QFileInfo(path).exists()) {
    *error =
        QObject::tr("Could not write %1; check that its folder exists and is writable.").arg(path);
    return false;
  }
  return true;
}

bool exportAllCanvases(const std::vector<MetricCanvas*>& canvases, const QString& folder,
                       const QString& format, QString* error) {
  if (!QDir().mkpath(folder)) {
    *error = QObject::tr("Could not create the folder %1.").arg(folder);
    return false;
  }
  for (MetricCanvas* canvas : canvases) {
    const QString path = QDir(folder).filePath(canvas->definition().id + "." + format.toLower());
    if (!exportCanvas(canvas, path, error)) return false;
  }
  return true;
}

std::vector<PlotImage> captureCanvases(const std::vector<MetricCanvas*>& canvases) {
  std::vector<PlotImage> out;
  for (MetricCanvas* canvas : canvases) {
    const QPixmap pixmap = canvas->plot()->toPixmap(kExportWidth, kExportHeight);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    pixmap.save(&buffer, "PNG");
    const CanvasDef& def = canvas->definition();
    out.push_back({def.id, def.title, def.explanation, png});
  }
  return out;
}

std::vector<PlotImage> renderPlots(const std::vector<RunData>& runs) {
  // One canvas per plot of the catalog, never shown, at the size of an exported image.
  std::vector<std::unique_ptr<MetricCanvas>> owned;
  std::vector<MetricCanvas*> canvases;
  for (const CanvasDef& def : plotCatalog()) {
    owned.push_back(std::make_unique<MetricCanvas>(def));
    owned.back()->resize(kExportWidth, kExportHeight);
    owned.back()->setXLabel(xAxisLabel(XAxisMode::kSamples));
    canvases.push_back(owned.back().get());
  }
  std::vector<const RunData*> shown;
  for (const RunData& run : runs) shown.push_back(&run);
  PlotFeed feed(canvases);
  feed.draw(shown, XAxisMode::kSamples, PlotGrid::kDefaultSmoothing);
  feed.refresh();
  return captureCanvases(canvases);
}

}  // namespace accumlab::ui
