// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace accumlab::cli {

/// The accumlab-cli app both programs parse with: its name, --version and the subcommand
/// rule (docs/cli.md).
void configureApp(CLI::App& app);
/// Parses the command line. Returns -1 to go on, else the exit code: 0 after --help,
/// --help-all or --version, 2 for a usage error (one sentence on stderr).
int parseCommandLine(CLI::App& app, int argc, char** argv);
/// Option checks with a message people can read ("must be a positive number, not 0"; CLI11's
/// own print the range up to the largest double).
extern const CLI::Validator kPositive;
extern const CLI::Validator kNonNegative;

/// Runs the chosen command; bad input becomes one sentence and exit 2, anything else an
/// internal error and exit 1.
int runCommand(const std::function<int()>& command);

}  // namespace accumlab::cli
