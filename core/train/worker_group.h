// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "accumlab/trainer.h"

namespace accumlab {

struct WindowResult;

/// A worker of a data-parallel run was lost: it died, hung past the timeout, or the master
/// went away. what() is one sentence naming the rank.
class WorkerLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One rank's membership of a data-parallel run, on LibTorch's own distributed engine: a c10d
/// store for the rendezvous (a FileStore in a private folder on one machine, rank 0's
/// TCPStore across machines) and ProcessGroupGloo for the all-reduce (CPU). Used on the
/// training thread only.
class WorkerGroup {
 public:
  /// Joins the run of `world` ranks: rank 0 opens the store (and, over TCP, proves that it
  /// knows the token, which every other rank checks and then proves in turn), every rank says
  /// hello with its world size, LibTorch version and `fingerprint` (the experiment's config
  /// JSON: a difference is named by its key), rank 0 compares them and answers; then the
  /// process group connects. Throws InputError with one sentence.
  WorkerGroup(const WorkerGroupOptions& options, int world, const std::string& fingerprint);
  ~WorkerGroup();
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return world_; }

  /// Sums `buffer` (contiguous, CPU) over every rank in place. Throws WorkerLost naming the
  /// rank that is gone when the all-reduce fails or times out.
  void allReduceSum(torch::Tensor& buffer);
  /// One accum window's all-reduce: sums this rank's gradient (in the parameters' .grad),
  /// its share of the window's sums in `r` (from the micro-batches `share`) and its wish to stop
  /// with every rank's, in one buffer; then derives `r`'s figures for the whole window of
  /// `window_samples` and agrees on the stop. Throws WorkerLost, or runtime_error when the
  /// ranks' samples do not add up to the window (they do not share one sample stream).
  void reduceWindow(std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& share,
                    int64_t window_samples, WindowResult& r);
  /// Seconds the last allReduceSum() took, and all of them together.
  double lastSeconds() const { return reduces_.last_s; }
  double totalSeconds() const { return reduces_.total_s; }

  /// A stop asked for on this rank; it travels with the next all-reduce (see stopAgreed).
  void wantStop() { want_stop_ = true; }
  bool stopWanted() const { return want_stop_; }
  /// Some rank asked to stop in the last all-reduce: every rank stops after this window.
  void agreeStop(bool any) { stop_agreed_ = stop_agreed_ || any; }
  bool stopAgreed() const { return stop_agreed_; }

  /// Closes this rank's connections to the others once its run has ended, so that a rank still
  /// waiting on it in an all-reduce learns at once instead of at the timeout. The store stays
  /// (the others may still call the roll); allReduceSum() afterwards throws WorkerLost.
  void leave();

 private:
  struct Impl;
  /// After a failed all-reduce: which ranks answer on the store within a few seconds.
  std::string whoIsGone(const std::string& detail);

  std::unique_ptr<Impl> impl_;
  int rank_ = 0;
  int world_ = 1;
  double timeout_s_ = 30;
  /// The all-reduces so far: how many, the last one's seconds and all of theirs.
  struct Reduces {
    int64_t count = 0;
    double last_s = 0;
    double total_s = 0;
  } reduces_;
  bool want_stop_ = false;
  bool stop_agreed_ = false;
};

}  // namespace accumlab
