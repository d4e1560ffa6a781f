#pragma once

#include <cstdint>
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
