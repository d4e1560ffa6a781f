// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <QApplication>
#include <algorithm>
#include <cstdio>

#include "accumlab/input_error.h"
#include "accumlab/lesson_store.h"
#include "accumlab/sweep_store.h"
#include "cli_main.h"
#include "engine_handoff.h"
#include "report/html_report.h"
#include "runs/run_loader.h"
#include "sweep/sweep_report.h"

namespace accumlab::cli {

ReportCommand::ReportCommand(CLI::App& parent) : StoreCommand(parent, "report", kReportAbout) {
  auto* ids = app_->add_option("ids", ids_,
                               "Run ids (each stands for its experiment; several are overlaid)");
  auto* sweep =
      app_->add_option("--sweep", sweep_, "A sweep's report instead (see `list --sweeps`)")
          ->check(kPositive);
  ids->excludes(sweep);
  auto* lesson =
      app_->add_option("--lesson", lesson_,
                       "A lesson attempt's report: its verdict and runs (see `lesson results`)")
          ->check(kPositive);
  lesson->excludes(ids)->excludes(sweep);
  app_->add_option("--out,-o", out_, "The HTML file to write")->required();
}

int ReportCommand::execute() {
  if (ids_.empty() && sweep_ == 0 && lesson_ == 0) {
    throw InputError("report needs run ids, --sweep ID or --lesson ID (see `accumlab-cli list`)");
  }
  const auto store = open();
  if (RunStore::wouldOverwrite(store->path(), out_)) {
    throw InputError("cannot write the report to " + out_ +
                     ": it is the run database; "
                     "choose another file with --out");
  }
  std::vector<ui::RunData> runs;
  SweepDetail sweep;
  LessonResultRow lesson;
  std::vector<LessonResultRow> lessons;
  if (sweep_ > 0) {
    sweep = SweepStore(*store).get(sweep_);
  } else if (lesson_ > 0) {
    lesson = LessonStore(*store).get(lesson_);
  } else {
    const std::vector<int64_t> wanted = parseRunIds(ids_);
    runs = ui::loadExperiments(*store, wanted);
    // Lesson attempts that trained any of these runs come with them.
    for (LessonResultRow& r : LessonStore(*store).list()) {
      const bool shown = std::any_of(r.run_ids.begin(), r.run_ids.end(), [&](int64_t id) {
        return std::find(wanted.begin(), wanted.end(), id) != wanted.end();
      });
      if (shown) lessons.push_back(std::move(r));
    }
  }

  // The plots are QCustomPlot widgets: render them on Qt's off-screen platform, so a report
  // needs no display.
  qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "accumlab-cli";
  static char* argv[] = {name, nullptr};
  QApplication app(argc, argv);
  QString error;
  const QString out = QString::fromStdString(out_);
  const bool written = sweep_ > 0 ? ui::writeSweepReport(sweep, out, &error)
                       : lesson_ > 0
                           ? ui::writeLessonReport(*store, lesson, out, &error)
                           : ui::writeHtmlReport(runs, ui::renderPlots(runs), out, &error, lessons);
  if (!written) {
    throw InputError(error.toStdString());
  }
  std::printf("%s\n", out_.c_str());
  return 0;
}

}  // namespace accumlab::cli
