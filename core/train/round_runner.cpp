// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/round_runner.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace accumlab {

namespace {

/// A round lasts about this long: the sink hears of the arms this often, and a thread that
/// runs out of windows at the end of a round waits a small part of it.
constexpr double kRoundMs = 100.0;
/// Common windows in one round at most (a run of tiny windows).
constexpr int64_t kMaxRoundWindows = 4096;

}  // namespace

int RoundRunner::threadsFor(const std::vector<std::unique_ptr<ArmRun>>& arms, int wanted) {
  // Random layers draw from LibTorch's process-wide generators, which each arm reseeds for
  // its windows (ArmRandom): those arms keep to one thread, in the sample clock's order.
  int running = 0;
  for (const auto& arm : arms) {
    if (arm->status != ArmStatus::kRunning) continue;
    if (arm->stepper->model().stochastic()) return 1;
    ++running;
  }
  return std::min(wanted, running);
}

int64_t RoundRunner::lengthen(int64_t horizon, int64_t stop_before) const {
  for (int64_t i = 1; i < windows_; ++i) {
    const int64_t next = run_.boundary_of_all(horizon + 1);
    if (stop_before <= next) break;
    horizon = next;
  }
  return horizon;
}

void RoundRunner::train(const std::vector<ArmRun*>& arms, int64_t horizon, int threads) {
  // Each arm's windows up to the horizon depend on that arm alone: its weights, optimizer,
  // sample stream and memory ledger. An arm trains on one thread at a time; a free thread
  // takes the arm furthest behind, so that the threads stay busy however unequal the arms'
  // windows are. Everything an arm tells in a round is about itself (a data-parallel run,
  // whose lost worker stops every arm, never trains in rounds).
  struct Lane {
    ArmRun* arm = nullptr;
    bool busy = false;
    Outbox outbox;
    std::exception_ptr failed;
  };
  std::vector<Lane> lanes;
  for (ArmRun* arm : arms) {
    if (arm->status == ArmStatus::kRunning) lanes.emplace_back().arm = arm;
  }
  std::mutex mutex;
  std::condition_variable freed;
  const auto wanted = [&](const Lane& lane) {
    return !lane.busy && !lane.failed && lane.arm->status == ArmStatus::kRunning &&
           lane.arm->stepper->samplesSeen() < horizon;
  };
  const auto work = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      Lane* next = nullptr;
      bool busy = false;
      for (Lane& lane : lanes) {
        busy = busy || lane.busy;
        if (!run_.go_on() || !wanted(lane)) continue;
        if (!next || lane.arm->stepper->samplesSeen() < next->arm->stepper->samplesSeen()) {
          next = &lane;
        }
      }
      if (!next) {
        if (!busy) return;
        freed.wait(lock);
        continue;
      }
      next->busy = true;
      lock.unlock();
      ArmRun& arm = *next->arm;
      next->outbox.startWindow(arm.stepper->samplesSeen());
      arm.outbox = &next->outbox;
      try {
        run_.train_window(arm);
      } catch (...) {
        next->failed = std::current_exception();
      }
      arm.outbox = nullptr;
      lock.lock();
      next->busy = false;
      freed.notify_all();
    }
  };
  const auto began = std::chrono::steady_clock::now();
  int64_t behind = horizon;
  for (const Lane& lane : lanes) behind = std::min(behind, lane.arm->stepper->samplesSeen());
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  // Told as training one window at a time would have told it: by the window's start on the
  // sample clock, ties in arm order (accum's step before big-batch's, whose record pairs).
  std::vector<Outbox::Held*> order;
  for (Lane& lane : lanes) {
    for (Outbox::Held& h : lane.outbox.held()) order.push_back(&h);
  }
  std::stable_sort(order.begin(), order.end(), [](const Outbox::Held* a, const Outbox::Held* b) {
    return a->window_start < b->window_start;
  });
  for (Outbox::Held* h : order) h->tell();
  for (const Lane& lane : lanes) {
    if (lane.failed) std::rethrow_exception(lane.failed);
  }

  // The next round spans as many common windows as take about kRoundMs.
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  int64_t reached = behind;
  for (const Lane& lane : lanes) reached = std::max(reached, lane.arm->stepper->samplesSeen());
  const int64_t span = reached - behind;
  const int64_t window = std::max<int64_t>(1, run_.boundary_of_all(behind + 1) - behind);
  const double windows = std::max(1.0, static_cast<double>(span) / static_cast<double>(window));
  if (ms > 0) {
    const double per_window = ms / windows;
    windows_ =
        std::clamp<int64_t>(static_cast<int64_t>(kRoundMs / per_window), 1, kMaxRoundWindows);
  }
}

}  // namespace accumlab
