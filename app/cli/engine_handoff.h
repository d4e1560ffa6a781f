// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <vector>

namespace accumlab::cli {

/// What `accumlab-cli --help` says of the subcommands that accumlab-engine runs; the engine's
/// own subcommands take their descriptions from here too.
inline constexpr const char* kRunAbout = "Train the arms of one experiment side by side";
inline constexpr const char* kSweepAbout =
    "Train a grid of batch sizes towards one target and fit the trade-off";
inline constexpr const char* kSweepPointAbout =
    "Train one point of a sweep from its job file (what a sweep's workers run)";
inline constexpr const char* kLessonAbout =
    "Guided experiments: predict, run, and check against theory";
inline constexpr const char* kReportAbout = "Write the one-file HTML report of stored runs";
inline constexpr const char* kCompletionAbout =
    "Print the bash completion of accumlab-cli (the package installs it)";

/// The subcommands that need LibTorch (run, sweep, lesson, report) as they appear in
/// accumlab-cli: each takes every argument after its name unparsed and hands the whole
/// command line to accumlab-engine, so accumlab-cli itself never loads LibTorch.
class EngineHandoff {
 public:
  explicit EngineHandoff(CLI::App& parent);
  /// Whether one of these subcommands was given.
  bool chosen() const;
  /// Replaces this process with accumlab-engine and the same arguments (the process id, and
  /// so Ctrl-C and the store's record of the running process, stay the same). Returns only
  /// when the engine cannot be started: then it prints one sentence and returns 1.
  static int exec(int argc, char** argv);

 private:
  std::vector<CLI::App*> commands_;
};

}  // namespace accumlab::cli
