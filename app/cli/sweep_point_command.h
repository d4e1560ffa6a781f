// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace accumlab::cli {

/// `accumlab-cli sweep-point JOB --outcome FILE`: trains one point of a sweep from its job
/// file (accumlab/sweep_job.h) into the job's store, quietly, and writes what became of it to
/// the outcome file: what a sweep's workers run. `sweep-point FOLDER --point I` does the same
/// for point I of a results folder (accumlab/sweep_array.h): what a scheduler's task runs.
class SweepPointCommand {
 public:
  explicit SweepPointCommand(CLI::App& parent);
  bool chosen() const { return app_->parsed(); }
  /// Trains the point; returns the exit code: 0 when it trained and stored, 1 when its run
  /// failed, 2 for bad input, 128 + signal when stopped. Writes the outcome in every case it
  /// can.
  int execute();

 private:
  CLI::App* app_;
  std::string job_path_;
  std::string outcome_path_;
  int64_t point_ = 0;  ///< --point I
};

}  // namespace accumlab::cli
