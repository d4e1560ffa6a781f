// SPDX-License-Identifier: GPL-3.0-or-later
#include <iostream>

#include "accumlab/format_bytes.h"
#include "accumlab/model_exporter.h"
#include "completion_hints.h"
#include "store_subcommands.h"

namespace accumlab::cli {

ExportModelCommand::ExportModelCommand(CLI::App& parent)
    : StoreCommand(parent, "export-model",
                   "Write a run's trained model as a TorchScript file for plain PyTorch "
                   "(torch.jit.load)") {
  app_->add_option("run", id_, "Run id (any arm of the experiment with --arm)")->required();
  completeWith(app_->add_option("--arm", arm_,
                                "The arm of the run's experiment whose model to write (default: "
                                "the run's own), e.g. accum, big-batch"),
               {enumNames<ArmKind>()});
  app_->add_option("--out,-o", out_, "The model file to write, e.g. model.pt")->required();
}

int ExportModelCommand::execute() {
  const int64_t id = parseRunIds({id_}).front();
  const auto store = open();
  ModelExporter exporter(*store);
  const RunRow run = exporter.pick(id, arm_);
  const int64_t bytes = exporter.write(run.id, out_);
  std::cerr << "Wrote run " << run.id << " (" << toString(run.arm) << ")'s trained model to "
            << out_ << " (" << formatBytes(static_cast<double>(bytes))
            << "); load it with torch.jit.load(\"" << out_ << "\")\n";
  return 0;
}

}  // namespace accumlab::cli
