// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab {

class ChildProcess;
class TempFolder;

/// Ranks 1…N−1 of a data-parallel run on this machine (ExperimentConfig::workers = N), as
/// child processes of `accumlab-cli run --config FILE --rank R --world-size N
/// --rendezvous-dir DIR`; the calling process is rank 0 (Trainer::joinWorkers with
/// WorkerGroupOptions::rendezvous_dir = rendezvousDir()). The ranks meet in a c10d FileStore
/// in DIR, a private (mode 0700) temporary folder, and talk over loopback: nothing listens on
/// the network. The experiment goes to the workers in a file in that folder, so every rank
/// runs exactly the same config. Their standard output is discarded; their errors go to the
/// caller's standard error. They are ChildProcesses (core/process/child_process.cpp) that do
/// not die with the thread that starts them. Made on one thread, used by one at a time.
class LocalWorkers {
 public:
  /// `cli`: the program that runs `run` (accumlab-engine, or accumlab-cli, which hands over to
  /// it). Makes the private folder (mkdtemp in $TMPDIR or /tmp) and writes the config there;
  /// starts nothing yet.
  LocalWorkers(std::string cli, const ExperimentConfig& config, double timeout_s);
  /// Ends workers that still run (SIGTERM, then SIGKILL) and removes the folder.
  ~LocalWorkers();
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  /// The private folder where the ranks meet: rank 0's WorkerGroupOptions::rendezvous_dir.
  const std::string& rendezvousDir() const;
  /// Starts ranks 1…N−1 against the rendezvous in rendezvousDir(); call once rank 0 is ready
  /// (WorkerGroupOptions::on_listening). Throws InputError when the program cannot start.
  void start();
  /// Waits for every worker to exit, a few seconds at most (then ends it); returns a sentence
  /// for each that did not exit with 0 ("worker rank 2 (pid 4711) was killed by signal 9").
  std::vector<std::string> wait();

 private:
  std::string cli_;
  std::unique_ptr<TempFolder> folder_;  ///< the private rendezvous folder
  std::string config_file_;             ///< in folder_
  int workers_;
  double timeout_s_;
  std::vector<std::unique_ptr<ChildProcess>> children_;  ///< rank r at r − 1
};

}  // namespace accumlab
