// SPDX-License-Identifier: GPL-3.0-or-later
// accumlab_store_holder: a long-lived process that holds a run store open the way the desktop
// app does (a RunStore for reading plus a StoreSink whose writer thread has a second
// connection), driven line by line on stdin by tests/cli/store_sharing_test.py.
//
// Commands (one per line) and replies (one line each on stdout):
//   write N  -> "wrote TOTAL"          hands over N more steps and waits for their commit
//   read     -> "read RUNS STEPS"      runs in the file and this run's steps, via the RunStore
//   end      -> "ended"                finishes the run and closes both connections
// Any failure prints "error MESSAGE" and exits 1.
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "accumlab/run_store.h"

namespace {

using namespace accumlab;

RunInfo holderInfo() {
  RunInfo info;
  info.config.name = "holder";
  info.config.data = "spirals";
  info.config.model = "mlp";
  info.config.micro_batch = 4;
  info.config.accum = 2;
  info.config.arms = {ArmKind::kAccum};
  info.device = "cpu (1 thread)";
  info.dataset = "spirals: 2000 samples";
  info.model = "mlp (100 parameters)";
  info.train_samples = 1800;
  info.val_samples = 200;
  info.budget_samples = 1 << 30;
  info.parameters = 100;
  return info;
}

StepRecord holderStep(int64_t step) {
  StepRecord r;
  r.arm = ArmKind::kAccum;
  r.step = step;
  r.samples_seen = step * 8;
  r.wall_ms = static_cast<double>(step);
  r.micro_batch = 4;
  r.accum = 2;
  r.window_samples = 8;
  r.loss = 1.0 / static_cast<double>(step + 1);
  r.lr = 0.05;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: accumlab_store_holder DB\n");
    return 2;
  }
  try {
    RunStore reader(argv[1]);
    reader.listRuns();  // the reading connection is open and has read, as the app's Runs tab
    auto writer = std::make_unique<StoreSink>(argv[1]);
    writer->onRunStarted(holderInfo());
    const int64_t run_id = writer->runs().at(0).run_id;
    int64_t steps = 0;
    std::cout << "ready " << run_id << std::endl;
    std::string command;
    while (std::cin >> command) {
      if (command == "write") {
        int64_t n = 0;
        std::cin >> n;
        for (int64_t i = 0; i < n; ++i) writer->onStep(holderStep(++steps));
        writer->finish();
        std::cout << "wrote " << steps << std::endl;
      } else if (command == "read") {
        const size_t runs = reader.listRuns().size();
        std::cout << "read " << runs << " " << reader.series(run_id).steps.size() << std::endl;
      } else if (command == "end") {
        ArmSummary arm;
        arm.arm = ArmKind::kAccum;
        arm.status = ArmStatus::kFinished;
        arm.steps = steps;
        arm.samples_seen = steps * 8;
        RunSummary summary;
        summary.info = holderInfo();
        summary.arms = {arm};
        writer->onArmFinished(arm);
        writer->onRunFinished(summary);
        writer->finish();
        writer.reset();
        std::cout << "ended" << std::endl;
        return 0;
      } else {
        std::cout << "error unknown command " << command << std::endl;
        return 1;
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::cout << "error " << e.what() << std::endl;
    return 1;
  }
}
