#include "cli_main.h"

#include <cstdio>
#include <exception>

#include "accumlab/input_error.h"
#include "accumlab_version.h"

namespace accumlab::cli {

void configureApp(CLI::App& app) {
  app.require_subcommand(1);
  app.set_version_flag("--version", "accumlab-cli " ACCUMLAB_VERSION_FULL);
}

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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accumlab-cli: internal error: %s\n", e.what());
    return 1;
  }
}

}  // namespace accumlab::cli
