// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace accumlab::cli {

/// `accumlab-cli lesson list|run|results` (docs/lessons.md): the guided experiments, headless.
/// `run` trains a lesson's runs (or its sweep's points) one after the other, stores them and
/// the verdict, prints the verdict and exits 0 when every check holds, 1 when one does not.
class LessonCommand {
 public:
  explicit LessonCommand(CLI::App& parent);
  /// Runs the chosen subcommand; returns the process exit code.
  int execute();
  bool chosen() const { return app_->parsed(); }

 private:
  int list() const;
  int run();
  int results() const;
  std::string dbPath() const;

  CLI::App* app_;
  CLI::App* list_;
  CLI::App* run_;
  CLI::App* results_;
  std::string which_;
  std::string predict_;
  std::string db_;
  bool no_store_ = false;
  bool json_ = false;
  bool quiet_ = false;
};

}  // namespace accumlab::cli
