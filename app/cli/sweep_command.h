// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_event.h"
#include "config_options.h"
#include "json_progress_sink.h"

namespace accumlab::cli {

/// `accumlab-cli sweep`: trains a grid of (m, K, LR) points towards one target, each a normal
/// stored run of the accum arm in its own worker process (one thread each, --jobs at once),
/// grouped as one sweep in the store; then fits steps to target against B and the loss
/// variance against B. `--resume ID` runs the points of a sweep that have not ended.
/// `--slurm --results DIR` writes the sweep as a scheduler's array job instead, and
/// `sweep collect DIR` brings its points home (docs/clusters.md).
class SweepCommand {
 public:
  explicit SweepCommand(CLI::App& parent);
  /// Runs the sweep; returns the process exit code. With `--progress jsonl` its progress is
  /// sweep_started, point_started, point_finished and sweep_finished objects on stderr, one
  /// per line, and a bad input is an `{"event": "error", "message"}` line before it throws.
  int execute();
  bool chosen() const { return app_->parsed(); }

 private:
  /// The grid's points from the list options, in order; validated against `base`.
  std::vector<SweepPoint> grid(const ExperimentConfig& base) const;
  /// execute() without the error line.
  int train();
  /// --slurm: writes the checked sweep into --results as an array job (and submits it with
  /// --submit) instead of training it here.
  int writeArray(const ExperimentConfig& base, const SweepTarget& target,
                 const std::vector<SweepPoint>& points);
  /// `sweep collect DIR`: merges a results folder's points into --db and prints the sweep.
  int collect();
  /// Prints a stored sweep as a table, or with --json as JSON.
  void printSweep(RunStore& store, int64_t sweep_id) const;
  /// Tells one event on stderr: its JSON line with `--progress jsonl`, else a line for people
  /// (nothing with --quiet).
  void report(const SweepEvent& event) const;

  CLI::App* app_;
  std::unique_ptr<ConfigOptions> options_;
  std::vector<int64_t> micro_batches_, accums_, effective_batches_;
  std::vector<double> lrs_;
  std::string arm_ = "accum";  ///< --arm: the recipe every point trains
  double target_loss_ = 0;
  double target_accuracy_ = 0;
  double smoothing_ = 0.9;
  int jobs_ = 1;
  int64_t resume_ = 0;
  bool json_ = false;
  bool quiet_ = false;
  ProgressFormat progress_ = ProgressFormat::kText;  ///< --progress text|jsonl
  std::string db_;
  bool slurm_ = false;                       ///< --slurm
  std::string results_;                      ///< --results DIR
  std::vector<std::string> sbatch_options_;  ///< --sbatch OPTION, each an #SBATCH line
  bool submit_ = false;                      ///< --submit
  CLI::App* collect_ = nullptr;              ///< `sweep collect`
  std::string collect_folder_;
};

}  // namespace accumlab::cli
