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
