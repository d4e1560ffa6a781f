// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/metrics_sink.h"
#include "accumlab/records.h"

namespace accumlab {

/// Trains the arms of one experiment side by side (docs/accumulation.md).
///
/// Threads: run() is called on one (training) thread. The request*() controls may be called
/// from any thread at any time; they are atomics and a mutex-guarded command queue, read by
/// the training loop between windows.
/// Where this process stands in a data-parallel run (ExperimentConfig::workers = N > 1), and
/// where its ranks meet (docs/data-parallel.md): ranks on this machine in a c10d FileStore in a
/// private folder (`rendezvous_dir`), with Gloo bound to 127.0.0.1, so that nothing listens beyond
/// loopback; ranks on several machines at rank 0's c10d TCPStore at host:port, where every
/// rank proves that it knows the shared `token`.
struct WorkerGroupOptions {
  int rank = 0;
  /// Ranks on this machine: the folder (mode 0700, owned by this user) where they meet, e.g.
  /// LocalWorkers::rendezvousDir(). Empty: a run on several machines, at host:port.
  std::string rendezvous_dir;
  std::string host = "127.0.0.1";  ///< the master's address, as every rank reaches it
  int port = 29500;                ///< rank 0 with 0: any free port (see on_listening)
  /// The secret every rank of a run on several machines presents (16 characters or more).
  /// Never stored, logged or sent: the store only sees salted HMACs of it.
  std::string token;
  /// The launcher already hosts a store at host:port (torchrun's agent store): every rank, 0
  /// included, joins it and none binds the port; its keys are written under store_prefix.
  bool launcher_store = false;
  std::string store_prefix;
  /// Seconds a rank waits for the others: at the rendezvous and in each all-reduce. A worker
  /// that dies or hangs stops the others within it.
  double timeout_s = 30;
  /// Rank 0: called once the rendezvous is ready, with its TCP port, or 0 in a rendezvous
  /// folder (start the other ranks then).
  std::function<void(int port)> on_listening;
};

class Trainer {
 public:
  explicit Trainer(ExperimentConfig config);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Loads the data and model, trains every arm to the budget and reports to `sink`.
  /// Throws InputError for a bad config, dataset or model; arm failures (divergence,
  /// out-of-memory) are reported in the summary, not thrown. A Trainer trains once: a second
  /// call throws std::logic_error (make a new Trainer for another run).
  RunSummary run(MetricsSink& sink);

  /// Saves the whole training state every `samples` samples (counted by the arm furthest
  /// behind, at a window boundary of every arm) to the file `path` returns (asked at the
  /// first save, e.g. once a store has its ids). The file is written aside and renamed, and
  /// the sink's flush() comes first, so a checkpoint never runs ahead of the stored records.
  /// It is removed when the run ends: it exists only while the run can be resumed. Call
  /// before run().
  void checkpointEvery(int64_t samples, std::function<std::string()> path);
  /// Continues, in run(), from a checkpoint saved by a run of the same config: every arm's
  /// weights, optimizer state, sample position, statistics and counters, and the schedules of
  /// evaluations, probes and pending m/K changes. RunInfo::resumed_after_ms says where its
  /// records end. Checkpoints go on to the same file at the same interval. Changes of m or K
  /// requested after the checkpoint are not replayed. run() throws InputError naming the
  /// file when it is missing, damaged, or from another experiment.
  void resumeFrom(const std::string& path);

  /// Makes this Trainer one rank of a data-parallel run of config.workers processes; call
  /// before run(). Every rank runs the same config (compared at the rendezvous, with the
  /// LibTorch version). Rank 0 trains every arm and reports to its sink; the other ranks
  /// train their share of the accum arm and do not evaluate or probe. run() throws
  /// InputError with one sentence for a port in use, an unreachable master, a missing or
  /// mismatched token, a rank that does not join within the timeout, or a mismatched config,
  /// world size or LibTorch; a worker lost mid-run fails the accum arm with a sentence naming
  /// its rank and stops the others.
  /// Pause and changes of m or K are refused (an event says so); a stop requested on any rank
  /// stops every rank at the same window.
  void joinWorkers(WorkerGroupOptions options);
  /// Pauses at the next window boundary.
  void requestPause();
  void requestResume();
  /// Stops every arm at the next window boundary (status `stopped`); `reason` becomes the
  /// stop event's and the arms' message.
  void requestStop(const std::string& reason = "stopped by the user");
  /// Changes m for every arm at one common sample position: the first window boundary that
  /// every arm reaches, so accum and big-batch switch together and stay paired. Optimizer
  /// state is kept. A request made while an earlier change is under way waits for it.
  void requestMicroBatch(int64_t m);
  /// Changes K like requestMicroBatch changes m.
  void requestAccum(int64_t k);
  bool isPaused() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace accumlab
