// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <vector>

#include "accumlab/run_store.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_store.h"
#include "plots/plot_exporter.h"

namespace accumlab::ui {

/// The sweep's one-file HTML report: its points, its fits in words, and the plots, on the
/// runs' report's stylesheet (report_page.h).
QString buildSweepReport(const SweepDetail& sweep, const SweepAnalysis& analysis,
                         const std::vector<PlotImage>& plots);
/// Renders the plots off-screen and writes the report to `path`; false with a sentence
/// naming the file on failure.
bool writeSweepReport(const SweepDetail& sweep, const QString& path, QString* error);

}  // namespace accumlab::ui
