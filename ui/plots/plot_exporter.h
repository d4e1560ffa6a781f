// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QPixmap>
#include <QString>
#include <vector>

#include "series/run_data.h"

class QCustomPlot;

namespace accumlab::ui {

class MetricCanvas;

/// Default size of an exported plot image, in pixels.
inline constexpr int kExportWidth = 900;
inline constexpr int kExportHeight = 560;

/// One plot rendered for a report.
struct PlotImage {
  QString id;
  QString title;
  QString explanation;  ///< rich text
  QByteArray png;
};

/// Writes `plot` to `path`; the suffix picks the format (png, svg or pdf). False with a
/// sentence naming the file on failure.
bool exportPlot(QCustomPlot* plot, const QString& title, const QString& path, QString* error,
                int width = kExportWidth, int height = kExportHeight);
/// Writes `canvas` to `path` with its title, read-out and arms' key in the image; the suffix
/// picks the format (png, svg or pdf). False with a sentence naming the file on failure.
bool exportCanvas(MetricCanvas* canvas, const QString& path, QString* error,
                  int width = kExportWidth, int height = kExportHeight);
/// `canvas` as an image of `width` × `height`, with its title, read-out and arms' key in it
/// (for the clipboard).
QPixmap canvasImage(MetricCanvas* canvas, int width = kExportWidth, int height = kExportHeight);
/// Writes each of `canvases` into `folder` as <id>.<format>; false with a message on failure.
bool exportAllCanvases(const std::vector<MetricCanvas*>& canvases, const QString& folder,
                       const QString& format, QString* error);
/// `canvases` as PNG images.
std::vector<PlotImage> captureCanvases(const std::vector<MetricCanvas*>& canvases);
/// Renders the plots of `runs` off-screen: one canvas per plot of the catalog, never shown.
std::vector<PlotImage> renderPlots(const std::vector<RunData>& runs);

}  // namespace accumlab::ui
