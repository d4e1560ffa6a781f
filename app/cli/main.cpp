// SPDX-License-Identifier: GPL-3.0-or-later
// accumlab-cli: the headless front end (docs/cli.md). This program links only the run store:
// the store commands run here, in milliseconds; run, sweep, lesson and report are handed to
// accumlab-engine (engine_main.cpp), which loads LibTorch.
#include <CLI/CLI.hpp>

#include <cstring>

#include "cli_main.h"
#include "engine_handoff.h"
#include "store_command.h"

int main(int argc, char** argv) {
  // The help of every subcommand with all its options (what the man page is made from) is
  // the engine's: it knows the options of run, sweep and lesson.
  if (argc == 2 && std::strcmp(argv[1], "--help-all") == 0) {
    return accumlab::cli::EngineHandoff::exec(argc, argv);
  }
  CLI::App app{"AccumLab: gradient accumulation, measured", "accumlab-cli"};
  accumlab::cli::configureApp(app);
  app.footer(
      "accumlab-cli SUBCOMMAND --help shows a subcommand's options; --help-all shows "
      "them all.");
  accumlab::cli::EngineHandoff engine(app);
  accumlab::cli::StoreCommands store(app);

  if (const int code = accumlab::cli::parseCommandLine(app, argc, argv); code >= 0) return code;
  if (engine.chosen()) return accumlab::cli::EngineHandoff::exec(argc, argv);
  return accumlab::cli::runCommand([&] {
    int code = 0;
    store.dispatch(code);
    return code;
  });
}
