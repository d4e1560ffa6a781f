// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <iostream>

#include "accumlab/input_error.h"
#include "accumlab/run_exporter.h"
#include "completion_hints.h"

namespace accumlab::cli {

ExportCommand::ExportCommand(CLI::App& parent)
    : StoreCommand(parent, "export", "Export runs' metrics, evals, config and summary") {
  app_->add_option("ids", ids_, "Run ids")->required();
  completeWith(
      app_->add_option("--format", format_,
                       "csv (long form, one row per step) | json | tensorboard (a log folder per "
                       "run in --out; view with tensorboard --logdir) (default: from the --out "
                       "extension)"),
      {{"csv", "json", "tensorboard"}});
  app_->add_option("--out,-o", out_, "Output file, - for stdout, or the folder for tensorboard")
      ->required();
}

int ExportCommand::execute() {
  const std::vector<int64_t> ids = parseRunIds(ids_);
  std::string format = format_;
  if (format.empty()) {
    const auto dot = out_.rfind('.');
    format = dot == std::string::npos ? "" : out_.substr(dot + 1);
    if (format != "csv" && format != "json") {
      throw InputError("cannot tell the export format from '" + out_ +
                       "'; pass --format csv, --format json or --format tensorboard");
    }
  }
  const ExportFormat f = parseExportFormat(format);
  const auto store = open();
  if (out_ == "-") {
    std::cout << RunExporter(*store).text(ids, f) << std::flush;
  } else {
    RunExporter(*store).write(ids, f, out_);
    std::cerr << "Exported " << ids.size() << (ids.size() == 1 ? " run" : " runs") << " to "
              << out_;
    if (f == ExportFormat::kTensorBoard) {
      std::cerr << "; view them with: tensorboard --logdir " << out_;
    }
    std::cerr << "\n";
  }
  return 0;
}

}  // namespace accumlab::cli
