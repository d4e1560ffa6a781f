// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// The `report` subcommand: `report ID… --out FILE.html [--db PATH]` renders the desktop
/// app's one-file HTML report off-screen. Each id stands for its whole experiment (all its
/// arms); ids of several experiments are overlaid, as in the app's compare mode.
/// `report --sweep ID --out FILE.html` writes a sweep's report: its points, fits and plots.
/// `report --lesson ID --out FILE.html` writes a lesson attempt's: its verdict and its runs.
/// A runs report starts with the lesson results of the attempts that trained those runs.
class ReportCommand : public StoreCommand {
 public:
  explicit ReportCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> ids_;
  std::string out_;
  int64_t sweep_ = 0;
  int64_t lesson_ = 0;
};

}  // namespace accumlab::cli
