// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plot_exporter.h"

#include <qcustomplot.h>
#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QSvgGenerator>
#include <QTextDocument>
#include <memory>

#include "plots/metric_canvas.h"
#include "plots/plot_feed.h"
#include "plots/plot_grid.h"

namespace accumlab::ui {

namespace {

/// The read-out's rich text as plain lines.
QString plainReadout(const MetricCanvas* canvas) {
  QTextDocument doc;
  doc.setHtml(canvas->readout());
  return doc.toPlainText().trimmed();
}

/// While alive, the canvas's plot carries in itself what the window shows around it: the
/// title (a label above it on screen), the read-out's numbers and the arms' key (the
/// window's one key on screen), so that an image of it says what it shows.
class SelfContained {
 public:
  explicit SelfContained(MetricCanvas* canvas)
      : canvas_(canvas), key_outside_(canvas->armKeyOutside()) {
    QCustomPlot* plot = canvas->plot();
    canvas->setArmKeyOutside(false);
    QFont bold = canvas->font();
    bold.setBold(true);
    plot->plotLayout()->insertRow(0);
    title_ = new QCPTextElement(plot, canvas->definition().title, bold);
    plot->plotLayout()->addElement(0, 0, title_);
    const QString readout = plainReadout(canvas);
    if (!readout.isEmpty()) {
      QFont small = canvas->font();
      small.setPointSizeF(small.pointSizeF() * 0.9);
      plot->plotLayout()->insertRow(1);
      readout_ = new QCPTextElement(plot, readout, small);
      plot->plotLayout()->addElement(1, 0, readout_);
    }
  }
  ~SelfContained() {
    QCustomPlot* plot = canvas_->plot();
    for (QCPTextElement* e : {readout_, title_}) {
      if (e) plot->plotLayout()->remove(e);
    }
    plot->plotLayout()->simplify();
    canvas_->setArmKeyOutside(key_outside_);
    plot->replot(QCustomPlot::rpQueuedReplot);
  }
  SelfContained(const SelfContained&) = delete;
  SelfContained& operator=(const SelfContained&) = delete;

 private:
  MetricCanvas* canvas_;
  bool key_outside_;
  QCPTextElement* title_ = nullptr;
  QCPTextElement* readout_ = nullptr;
};

}  // namespace

bool exportCanvas(MetricCanvas* canvas, const QString& path, QString* error, int width,
                  int height) {
  const SelfContained whole(canvas);
  return exportPlot(canvas->plot(), canvas->definition().title, path, error, width, height);
}

QPixmap canvasImage(MetricCanvas* canvas, int width, int height) {
  const SelfContained whole(canvas);
  return canvas->plot()->toPixmap(width, height);
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
    const QPixmap pixmap = canvasImage(canvas, kExportWidth, kExportHeight);
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
