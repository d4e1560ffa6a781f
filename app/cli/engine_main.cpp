// SPDX-License-Identifier: GPL-3.0-or-later
// accumlab-engine: the part of accumlab-cli that trains (run, sweep, lesson) and renders
// reports. accumlab-cli hands those subcommands here with its own command line (main.cpp);
// the store commands are registered too, so that --help-all describes everything.
#include <CLI/CLI.hpp>

#include <cstring>

#include "accumlab/torchscript_check.h"
#include "cli_main.h"
#include "completion_command.h"
#include "lesson_command.h"
#include "run_command.h"
#include "store_command.h"
#include "store_subcommands.h"
#include "sweep_command.h"
#include "sweep_point_command.h"

int main(int argc, char** argv) {
  // `check-model FILE SAMPLE`: the child in which a user's TorchScript file loads first, under
  // memory and time limits (core/include/accumlab/torchscript_check.h). Not a user's command:
  // it is in no help text, and it loads straight in this process.
  if ((argc == 3 || argc == 4) && std::strcmp(argv[1], accumlab::kCheckModelCommand) == 0) {
    return accumlab::checkModelHere(argv[2], argc == 4 ? argv[3] : "");
  }
  CLI::App app{"AccumLab: gradient accumulation, measured", "accumlab-cli"};
  accumlab::cli::configureApp(app);
  app.set_help_all_flag("--help-all", "Print the help of every subcommand and exit");
  accumlab::cli::RunCommand run(app);
  accumlab::cli::SweepCommand sweep(app);
  accumlab::cli::SweepPointCommand sweep_point(app);
  accumlab::cli::LessonCommand lesson(app);
#ifdef ACCUMLAB_WITH_UI
  accumlab::cli::ReportCommand report(app);
#endif
  accumlab::cli::StoreCommands store(app);
  accumlab::cli::CompletionCommand completion(app);

  if (const int code = accumlab::cli::parseCommandLine(app, argc, argv); code >= 0) return code;
  return accumlab::cli::runCommand([&] {
    if (app.got_subcommand("run")) return run.execute();
    if (sweep.chosen()) return sweep.execute();
    if (sweep_point.chosen()) return sweep_point.execute();
    if (lesson.chosen()) return lesson.execute();
    if (completion.chosen()) return completion.execute();
#ifdef ACCUMLAB_WITH_UI
    if (report.chosen()) return report.execute();
#endif
    int code = 0;
    store.dispatch(code);
    return code;
  });
}
