// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <vector>

#include "accumlab/lesson_store.h"
#include "accumlab/run_store.h"
#include "plots/plot_exporter.h"
#include "series/run_data.h"

namespace accumlab::ui {

/// The one-file HTML report (no external files): per run a config table, a summary table
/// with ratios against the no-accum arm and the events; the plots as embedded PNG images;
/// and the semantics used (window normalisation, policy, estimators).
/// With `lessons`, a "Lesson results" section comes first: per attempt its prediction and
/// each check's measured value, interval, theory, verdict and explanation.
QString buildHtmlReport(const std::vector<RunData>& runs, const std::vector<PlotImage>& plots,
                        const std::vector<LessonResultRow>& lessons = {});
/// Renders the plots off-screen and writes the report to `path`; false with a sentence
/// naming the file on failure.
bool writeHtmlReport(const std::vector<RunData>& runs, const QString& path, QString* error);
/// Writes the report with plots already captured (e.g. from the main window).
bool writeHtmlReport(const std::vector<RunData>& runs, const std::vector<PlotImage>& plots,
                     const QString& path, QString* error,
                     const std::vector<LessonResultRow>& lessons = {});
/// The report of one lesson attempt: its verdict and the experiments of the runs it trained,
/// read from `store`; false with a sentence on failure.
bool writeLessonReport(RunStore& store, const LessonResultRow& result, const QString& path,
                       QString* error);

}  // namespace accumlab::ui
