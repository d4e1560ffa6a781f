// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <vector>

#include "plots/plot_exporter.h"

namespace accumlab::ui {

/// What every one-file HTML report of the app shares (the runs' report in html_report.cpp,
/// the sweep's in sweep_report.cpp): one stylesheet, the page's head, the plots as figures
/// and the writing of the file.

/// The page up to and including <body>: `title_html` (already escaped) and the stylesheet.
QString reportHead(const QString& title_html);
/// The end of the page, after the last section.
QString reportFoot();
/// `plots` as figures with their PNG embedded and their title and explanation as caption.
QString reportFigures(const std::vector<PlotImage>& plots);
/// Writes `html` to `path` as UTF-8, whole or not at all; false with a sentence naming the
/// file on failure.
bool writeReportFile(const QString& html, const QString& path, QString* error);

}  // namespace accumlab::ui
