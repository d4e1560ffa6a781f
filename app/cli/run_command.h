// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/run_session.h"
#include "config_options.h"
#include "json_progress_sink.h"

namespace accumlab::cli {

/// The `run` subcommand: options for every field of ExperimentConfig (docs/cli.md).
class RunCommand {
 public:
  explicit RunCommand(CLI::App& parent);
  /// Runs the experiment; returns the process exit code. With `--progress jsonl` a bad input
  /// is also an `{"event": "error", "message"}` line on stderr before the exception leaves.
  int execute();

 private:
  /// The config file (if any) with every option given on the command line applied on top.
  ExperimentConfig resolveConfig() const;
  /// The shared token of a run on several machines: --token, --token-file or ACCUMLAB_TOKEN
  /// ("" when none is given). Throws InputError for a token file it cannot read.
  std::string resolveToken() const;
  /// --stop-at-loss or --stop-at-val-accuracy, if given.
  std::optional<SweepTarget> stopTarget() const;
  /// How rank R (--rank) meets the others: --rendezvous-dir, or --master with the token.
  /// Throws InputError when neither is given or they are mixed.
  WorkerGroupOptions joinOptions() const;
  /// Without --rank (and --workers): the rank, world size and master a launcher (srun,
  /// torchrun) gave this process, if any; --master and --master-port win over them.
  void placeFromLauncher();
  /// execute() without the error line.
  int train();
  /// Trains as rank R > 0 of a data-parallel run: no store, no summary.
  int runAsWorker(RunSession& session);

  CLI::App* app_;
  std::unique_ptr<ConfigOptions> options_;
  int64_t effective_batch_ = 0;  ///< --effective-batch B, with --memory-budget
  double stop_at_loss_ = 0;      ///< --stop-at-loss X
  double stop_at_accuracy_ = 0;  ///< --stop-at-val-accuracy A
  double smoothing_ = 0.9;       ///< --smoothing s of the watched EMA
  bool json_ = false;
  bool quiet_ = false;
  ProgressFormat progress_ = ProgressFormat::kText;  ///< --progress text|jsonl
  std::string db_;                ///< --db: the run store (default RunStore::defaultPath())
  bool no_store_ = false;         ///< --no-store
  int64_t checkpoint_every_ = 0;  ///< --checkpoint-every SAMPLES
  int64_t resume_ = 0;            ///< --resume RUN_ID
  // A data-parallel run (docs/data-parallel.md): --workers N on this
  // machine, or one rank of many.
  int rank_ = -1;                ///< --rank R: join as rank R; -1: not given
  int64_t world_size_ = 0;       ///< --world-size N
  std::string master_;           ///< --master HOST:PORT
  int master_port_ = 0;          ///< --master-port PORT (0: not given)
  bool launcher_store_ = false;  ///< join torchrun's agent store instead of hosting one
  int launcher_restart_ = 0;     ///< torchrun's restart count: the store's keys of this attempt
  std::string rendezvous_dir_;   ///< --rendezvous-dir DIR: ranks on this machine (LocalWorkers)
  std::string token_;            ///< --token TEXT (ps shows it: --token-file, ACCUMLAB_TOKEN)
  std::string token_file_;       ///< --token-file FILE
  double worker_timeout_ = WorkerGroupOptions{}.timeout_s;  ///< --worker-timeout SECONDS
};

}  // namespace accumlab::cli
