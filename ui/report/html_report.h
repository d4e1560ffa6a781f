#pragma once

#include <QString>
#include <vector>

#include "report/plot_exporter.h"
#include "series/run_data.h"

namespace accumlab::ui {

/// The one-file HTML report (no external files): per run a config table, a summary table
/// with ratios against the no-accum arm and the events; the plots as embedded PNG images;
/// and the semantics used (window normalisation, policy, estimators).
QString buildHtmlReport(const std::vector<RunData>& runs, const std::vector<PlotImage>& plots);
/// Renders the plots off-screen and writes the report to `path`; false with a sentence
/// naming the file on failure.
bool writeHtmlReport(const std::vector<RunData>& runs, const QString& path, QString* error);
/// Writes the report with plots already captured (e.g. from the main window).
bool writeHtmlReport(const std::vector<RunData>& runs, const std::vector<PlotImage>& plots,
                     const QString& path, QString* error);

}  // namespace accumlab::ui
