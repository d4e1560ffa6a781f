#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/metrics_sink.h"
#include "accumlab/records.h"

namespace accumlab {

/// Trains the arms of one experiment side by side (DESIGN.md §2).
///
/// Threads: run() is called on one (training) thread. The request*() controls may be called
/// from any thread at any time; they are atomics and a mutex-guarded command queue, read by
/// the training loop between windows.
/// Where this process stands in a data-parallel run (ExperimentConfig::workers = N > 1):
/// rank 0 hosts the rendezvous (c10d's TCPStore) at host:port, ranks 1…N−1 join it, and
/// every rank trains its share of each accum window (DESIGN.md §2).
struct WorkerGroupOptions {
  int rank = 0;
  std::string host = "127.0.0.1";  ///< the master's address, as every rank reaches it
  int port = 29500;                ///< rank 0 with 0: any free port (see on_listening)
  /// Seconds a rank waits for the others: at the rendezvous and in each all-reduce. A worker
  /// that dies or hangs stops the others within it.
  double timeout_s = 30;
  /// Rank 0: called once the rendezvous listens, with its port (start the other ranks then).
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
  /// InputError with one sentence for a port in use, an unreachable master, a rank that does
  /// not join within the timeout, or a mismatched config, world size or LibTorch; a worker
  /// lost mid-run fails the accum arm with a sentence naming its rank and stops the others.
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
