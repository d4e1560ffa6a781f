// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_main.h"

#include <csignal>
#include <cstdio>
#include <exception>

#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab_version.h"

namespace accumlab::cli {

void configureApp(CLI::App& app) {
  app.require_subcommand(1);
  app.set_version_flag("--version", "accumlab-cli " ACCUMLAB_VERSION_FULL);
}

namespace {

CLI::Validator numberCheck(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
        if (v > 0 || (zero_allowed && v == 0)) return {};
        return std::string("must be ") + (zero_allowed ? "zero or more" : "a positive number") +
               ", not " + text;
      },
      zero_allowed ? "NONNEGATIVE" : "POSITIVE");
}

}  // namespace

const CLI::Validator kPositive = numberCheck(false);
const CLI::Validator kNonNegative = numberCheck(true);

int parseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "accumlab-cli: %s (see accumlab-cli --help)\n", e.what());
    return 2;
  }
  return -1;
}

int runCommand(const std::function<int()>& command) {
  try {
    return command();
  } catch (const InputError& e) {
    std::fprintf(stderr, "accumlab-cli: %s\n", e.what());
    return 2;
  } catch (const ReadStopped& e) {  // Ctrl-C while the data was read
    std::fprintf(stderr, "accumlab-cli: %s; nothing was trained or stored\n", e.what());
    return 128 + SIGINT;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accumlab-cli: internal error: %s\n", e.what());
    return 1;
  }
}

}  // namespace accumlab::cli
