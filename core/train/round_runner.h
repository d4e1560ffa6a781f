// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "train/arm_run.h"

namespace accumlab {

/// What an arm training in a round tells the sink, held back with the start of the window
/// that told it, to be told on the run's thread when the round ends.
class Outbox {
 public:
  struct Held {
    int64_t window_start = 0;
    std::function<void()> tell;
  };
  void startWindow(int64_t at) { window_start_ = at; }
  void hold(std::function<void()> tell) { held_.push_back({window_start_, std::move(tell)}); }
  std::vector<Held>& held() { return held_; }

 private:
  int64_t window_start_ = 0;
  std::vector<Held> held_;
};

/// Rounds of parallel training (config.arm_threads): each arm trains on whichever thread is
/// free, a window at a time, up to a window boundary that every running arm shares; what it
/// tells the sink waits in its Outbox and is told on the run's thread afterwards, in the order
/// that training one window at a time on the sample clock would have told it. A round spans
/// as many common windows as take about 100 ms (the sink hears of the arms that often).
class RoundRunner {
 public:
  /// What a round asks of the run that owns the arms.
  struct Run {
    /// Trains one window of the arm; a failure the run cannot absorb is thrown.
    std::function<void(ArmRun&)> train_window;
    /// The first position at or after `at` that is a window boundary of every running arm.
    std::function<int64_t(int64_t)> boundary_of_all;
    /// False once a stop, pause or size change is asked for: the round ends early.
    std::function<bool()> go_on;
  };

  explicit RoundRunner(Run run) : run_(std::move(run)) {}

  /// How many of `wanted` threads a round of `arms` may use: one per running arm, and one in
  /// all when an arm has random layers.
  static int threadsFor(const std::vector<std::unique_ptr<ArmRun>>& arms, int wanted);

  /// `horizon` moved on by this round's length − 1 common boundaries, never past `stop_before`
  /// (a checkpoint due: taken with every arm at rest, between rounds).
  int64_t lengthen(int64_t horizon, int64_t stop_before) const;
  /// Trains every running arm of `arms` up to `horizon` on `threads` threads, the arm furthest
  /// behind first; then tells the sink what they held, and sizes the next round.
  void train(const std::vector<ArmRun*>& arms, int64_t horizon, int threads);

 private:
  Run run_;
  int64_t windows_ = 1;  ///< common windows the next round spans
};

}  // namespace accumlab
