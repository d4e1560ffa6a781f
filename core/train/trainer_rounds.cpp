// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "train/trainer_impl.h"

// Rounds of parallel training (config.arm_threads): each arm trains on whichever thread is
// free, a window at a time, up to a window boundary that every running arm shares; what it
// tells the sink is held back and told on the run's thread afterwards (trainer.cpp schedules
// the rounds).
namespace accumlab {

namespace {

/// A round lasts about this long: the sink hears of the arms this often, and a thread that
/// runs out of windows at the end of a round waits a small part of it.
constexpr double kRoundMs = 100.0;
/// Common windows in one round at most (a run of tiny windows).
constexpr int64_t kMaxRoundWindows = 4096;

/// What an arm would tell the sink, and where the window that told it started.
struct Held {
  int64_t window_start = 0;
  std::function<void()> tell;
};

/// While this thread trains an arm in a round, that arm's held list and its window's start.
thread_local std::vector<Held>* t_held = nullptr;
thread_local int64_t t_window_start = 0;

}  // namespace

void Trainer::Impl::publish(std::function<void()> tell) {
  if (t_held) {
    t_held->push_back({t_window_start, std::move(tell)});
  } else {
    tell();
  }
}

bool Trainer::Impl::inRound() { return t_held != nullptr; }

int64_t Trainer::Impl::roundHorizon() {
  int64_t at = 0;
  bool level = true;
  bool first = true;
  for (auto& arm : arms) {
    if (arm->status != ArmStatus::kRunning) continue;
    const int64_t seen = arm->stepper->samplesSeen();
    if (!first && seen != at) level = false;
    at = first ? seen : std::max(at, seen);
    first = false;
  }
  return boundaryOfAll(level ? at + 1 : at);  // all at one boundary: the next one
}

int64_t Trainer::Impl::longerRound(int64_t horizon) {
  for (int64_t i = 1; i < round_windows; ++i) {
    const int64_t next = boundaryOfAll(horizon + 1);
    // A checkpoint is taken with every arm at rest on the sample clock, between rounds.
    if (checkpoint_every > 0 && next_checkpoint <= next) break;
    horizon = next;
  }
  return horizon;
}

int Trainer::Impl::armThreadsAllowed() const {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return armsAtOnce(config, cores, device.type() == torch::kCPU);
}

int Trainer::Impl::parallelArms(int64_t horizon) {
  const int wanted = armThreadsAllowed();
  if (wanted == 1 || pending || control.paused() || control.stopRequested()) return 1;
  // Random layers draw from LibTorch's process-wide generators, which each arm reseeds for
  // its windows (ArmRandom): those arms keep to one thread, in the sample clock's order.
  int running = 0;
  for (auto& arm : arms) {
    if (arm->status != ArmStatus::kRunning) continue;
    if (arm->stepper->model().stochastic()) return 1;
    ++running;
  }
  // A checkpoint is taken with every arm at rest on the sample clock.
  if (checkpoint_every > 0 && next_checkpoint <= horizon) return 1;
  return std::min(wanted, running);
}

void Trainer::Impl::trainRound(int64_t horizon, int threads) {
  // Each arm's windows up to the horizon depend on that arm alone: its weights, optimizer,
  // sample stream and memory ledger. An arm trains on one thread at a time; a free thread
  // takes the arm furthest behind, so that the threads stay busy however unequal the arms'
  // windows are.
  struct Lane {
    ArmRun* arm = nullptr;
    bool busy = false;
    std::vector<Held> held;
    std::exception_ptr failed;
  };
  std::vector<Lane> lanes;
  for (auto& arm : arms) {
    if (arm->status == ArmStatus::kRunning) lanes.emplace_back().arm = arm.get();
  }
  std::mutex mutex;
  std::condition_variable freed;
  const auto wanted = [&](const Lane& lane) {
    return !lane.busy && !lane.failed && lane.arm->status == ArmStatus::kRunning &&
           lane.arm->stepper->samplesSeen() < horizon;
  };
  const auto goOn = [&] {
    return !control.stopRequested() && !control.paused() && !control.sizeChangeRequested();
  };
  const auto work = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      Lane* next = nullptr;
      bool busy = false;
      for (Lane& lane : lanes) {
        busy = busy || lane.busy;
        if (!goOn() || !wanted(lane)) continue;
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
      t_held = &next->held;
      t_window_start = next->arm->stepper->samplesSeen();
      try {
        trainWindowOrFail(*next->arm);
      } catch (...) {
        next->failed = std::current_exception();
      }
      t_held = nullptr;
      lock.lock();
      next->busy = false;
      freed.notify_all();
    }
  };
  const auto began = Clock::now();
  const int64_t behind = [&] {
    int64_t at = horizon;
    for (const Lane& lane : lanes) at = std::min(at, lane.arm->stepper->samplesSeen());
    return at;
  }();
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  // Told as training one window at a time would have told it: by the window's start on the
  // sample clock, ties in arm order (accum's step before big-batch's, whose record pairs).
  std::vector<Held*> order;
  for (Lane& lane : lanes) {
    for (Held& h : lane.held) order.push_back(&h);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const Held* a, const Held* b) { return a->window_start < b->window_start; });
  for (Held* h : order) h->tell();
  for (const Lane& lane : lanes) {
    if (lane.failed) std::rethrow_exception(lane.failed);
  }

  // The next round spans as many common windows as take about kRoundMs.
  const double ms = msSince(began);
  int64_t reached = behind;
  for (const Lane& lane : lanes) reached = std::max(reached, lane.arm->stepper->samplesSeen());
  const int64_t span = reached - behind;
  const int64_t window = std::max<int64_t>(1, boundaryOfAll(behind + 1) - behind);
  const double windows = std::max(1.0, static_cast<double>(span) / static_cast<double>(window));
  if (ms > 0) {
    const double per_window = ms / windows;
    round_windows =
        std::clamp<int64_t>(static_cast<int64_t>(kRoundMs / per_window), 1, kMaxRoundWindows);
  }
}

}  // namespace accumlab
