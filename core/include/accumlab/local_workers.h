#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab {

/// Ranks 1…N−1 of a data-parallel run on this machine (ExperimentConfig::workers = N), as
/// child processes of `accumlab-cli run --config FILE --rank R --world-size N --master
/// 127.0.0.1:PORT`; the calling process is rank 0 (Trainer::joinWorkers). The experiment goes
/// to the workers in a private temporary file, so every rank runs exactly the same config.
/// Their standard output is discarded; their errors go to the caller's standard error.
class LocalWorkers {
 public:
  /// `cli`: the program that runs `run` (accumlab-engine, or accumlab-cli, which hands over to
  /// it). Writes the config file; starts nothing yet.
  LocalWorkers(std::string cli, const ExperimentConfig& config, double timeout_s);
  /// Ends workers that still run (SIGTERM, then SIGKILL) and removes the config file.
  ~LocalWorkers();
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  /// Starts ranks 1…N−1 against rank 0's rendezvous at 127.0.0.1:`port` (from
  /// WorkerGroupOptions::on_listening). Throws InputError when the program cannot start.
  void start(int port);
  /// Waits for every worker to exit, a few seconds at most (then ends it); returns a sentence
  /// for each that did not exit with 0 ("worker rank 2 (pid 4711) was killed by signal 9").
  std::vector<std::string> wait();

 private:
  std::string cli_;
  std::string config_file_;
  int workers_;
  double timeout_s_;
  std::vector<pid_t> pids_;  ///< rank r at r − 1; 0 once reaped
};

}  // namespace accumlab
