// accumlab-engine: the part of accumlab-cli that trains (run, sweep, lesson) and renders
// reports. accumlab-cli hands those subcommands here with its own command line (main.cpp);
// the store commands are registered too, so that --help-all describes everything.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "accumlab/input_error.h"
#include "accumlab_version.h"
#include "lesson_command.h"
#include "run_command.h"
#ifdef ACCUMLAB_WITH_UI
#include "report_command.h"
#endif
#include "store_command.h"
#include "sweep_command.h"

int main(int argc, char** argv) {
  CLI::App app{"AccumLab: gradient accumulation, measured", "accumlab-cli"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "accumlab-cli " ACCUMLAB_VERSION_FULL);
  app.set_help_all_flag("--help-all", "Print the help of every subcommand and exit");
  accumlab::cli::RunCommand run(app);
  accumlab::cli::SweepCommand sweep(app);
  accumlab::cli::LessonCommand lesson(app);
#ifdef ACCUMLAB_WITH_UI
  accumlab::cli::ReportCommand report(app);
#endif
  accumlab::cli::StoreCommands store(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "accumlab-cli: %s (see accumlab-cli --help)\n", e.what());
    return 2;
  }
  try {
    if (app.got_subcommand("run")) return run.execute();
    if (sweep.chosen()) return sweep.execute();
    if (lesson.chosen()) return lesson.execute();
#ifdef ACCUMLAB_WITH_UI
    if (report.chosen()) return report.execute();
#endif
    if (int code = 0; store.dispatch(code)) return code;
  } catch (const accumlab::InputError& e) {
    std::fprintf(stderr, "accumlab-cli: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accumlab-cli: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}
