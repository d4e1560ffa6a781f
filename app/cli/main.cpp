// accumlab-cli: the headless front end (DESIGN.md §8). This program links only the run store:
// the store commands run here, in milliseconds; run, sweep, lesson and report are handed to
// accumlab-engine (engine_main.cpp), which loads LibTorch.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <exception>

#include "accumlab/input_error.h"
#include "accumlab_version.h"
#include "engine_handoff.h"
#include "store_command.h"

int main(int argc, char** argv) {
  // The help of every subcommand with all its options (what the man page is made from) is
  // the engine's: it knows the options of run, sweep and lesson.
  if (argc == 2 && std::strcmp(argv[1], "--help-all") == 0) {
    return accumlab::cli::EngineHandoff::exec(argc, argv);
  }
  CLI::App app{"AccumLab: gradient accumulation, measured", "accumlab-cli"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "accumlab-cli " ACCUMLAB_VERSION_FULL);
  app.footer("accumlab-cli SUBCOMMAND --help shows a subcommand's options; --help-all shows "
             "them all.");
  accumlab::cli::EngineHandoff engine(app);
  accumlab::cli::StoreCommands store(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "accumlab-cli: %s (see accumlab-cli --help)\n", e.what());
    return 2;
  }
  if (engine.chosen()) return accumlab::cli::EngineHandoff::exec(argc, argv);
  try {
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
