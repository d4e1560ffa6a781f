// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace accumlab {

/// The commands other threads send to a running Trainer. Written from any thread, read by
/// the training loop between windows; the flags are atomics, the pending sizes and the
/// pause wait are guarded by `mutex_`.
class TrainerControl {
 public:
  void requestPause() { paused_ = true; }
  void requestResume() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      paused_ = false;
    }
    wake_.notify_all();
  }
  void requestStop(std::string reason) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!stop_) stop_reason_ = std::move(reason);  // the first reason stands
      stop_ = true;
    }
    wake_.notify_all();
  }
  /// Why the stop was asked for (after stopRequested()).
  std::string stopReason() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stop_reason_;
  }
  void requestMicroBatch(int64_t m) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_m_ = m;
  }
  void requestAccum(int64_t k) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_k_ = k;
  }
  bool paused() const { return paused_; }
  /// Whether a change of m or K waits to be taken.
  bool sizeChangeRequested() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return pending_m_.has_value() || pending_k_.has_value();
  }
  bool stopRequested() const { return stop_; }
  /// The stop flag itself, for work that asks it in pieces (reading the data).
  const std::atomic<bool>& stopFlag() const { return stop_; }

  /// Takes the pending changes (training thread).
  std::optional<int64_t> takeMicroBatch() {
    std::lock_guard<std::mutex> lock(mutex_);
    auto v = pending_m_;
    pending_m_.reset();
    return v;
  }
  std::optional<int64_t> takeAccum() {
    std::lock_guard<std::mutex> lock(mutex_);
    auto v = pending_k_;
    pending_k_.reset();
    return v;
  }
  /// Blocks while paused, until resumed or stopped (training thread).
  void waitWhilePaused() {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [this] { return !paused_ || stop_; });
  }

 private:
  std::atomic<bool> paused_{false};
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::string stop_reason_;  ///< guarded by mutex_
  std::condition_variable wake_;
  std::optional<int64_t> pending_m_;
  std::optional<int64_t> pending_k_;
};

}  // namespace accumlab
