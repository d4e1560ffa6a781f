#include "report_command.h"

#include <QApplication>
#include <cstdio>

#include "accumlab/input_error.h"
#include "report/html_report.h"
#include "runs/run_loader.h"

namespace accumlab::cli {

ReportCommand::ReportCommand(CLI::App& parent)
    : StoreCommand(parent, "report", "Write the one-file HTML report of stored runs") {
  app_->add_option("ids", ids_, "Run ids (each stands for its experiment; several are overlaid)")
      ->required();
  app_->add_option("--out,-o", out_, "The HTML file to write")->required();
}

int ReportCommand::execute() {
  const std::vector<int64_t> ids = parseRunIds(ids_);
  const auto store = open();
  if (RunStore::wouldOverwrite(store->path(), out_)) {
    throw InputError("cannot write the report to " + out_ + ": it is the run database; "
                     "choose another file with --out");
  }
  const std::vector<ui::RunData> runs = ui::loadExperiments(*store, ids);

  // The plots are QCustomPlot widgets: render them on Qt's off-screen platform, so a report
  // needs no display.
  qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "accumlab-cli";
  static char* argv[] = {name, nullptr};
  QApplication app(argc, argv);
  QString error;
  if (!ui::writeHtmlReport(runs, QString::fromStdString(out_), &error)) {
    throw InputError(error.toStdString());
  }
  std::printf("%s\n", out_.c_str());
  return 0;
}

}  // namespace accumlab::cli
