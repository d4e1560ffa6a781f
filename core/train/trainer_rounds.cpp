#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "train/trainer_impl.h"

// Rounds of parallel training (config.arm_threads): between window boundaries that every
// running arm shares, each arm trains on its own thread; what it tells the sink is held back
// and told on the run's thread afterwards (trainer.cpp schedules the rounds).
namespace accumlab {

namespace {

/// While this thread trains an arm in a round (trainRound), what it would tell the sink.
thread_local std::vector<std::function<void()>>* t_held = nullptr;

}  // namespace

void Trainer::Impl::publish(std::function<void()> tell) {
  if (t_held) {
    t_held->push_back(std::move(tell));
  } else {
    tell();
  }
}

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

int Trainer::Impl::armThreadsAllowed() const {
  if (config.arm_threads == 1 || group || device.type() != torch::kCPU) return 1;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return config.arm_threads > 0 ? config.arm_threads : static_cast<int>(cores);
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
  std::vector<ArmRun*> running;
  for (auto& arm : arms) {
    if (arm->status == ArmStatus::kRunning) running.push_back(arm.get());
  }
  // Each arm's windows up to the horizon depend on that arm alone: its weights, optimizer,
  // sample stream and memory ledger. What it tells the sink waits in its own list.
  std::vector<std::vector<std::function<void()>>> held(running.size());
  std::vector<std::exception_ptr> failed(running.size());
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next++; i < running.size(); i = next++) {
      t_held = &held[i];
      ArmRun& arm = *running[i];
      try {
        while (arm.status == ArmStatus::kRunning && arm.stepper->samplesSeen() < horizon &&
               !control.stopRequested()) {
          trainWindowOrFail(arm);
        }
      } catch (...) {
        failed[i] = std::current_exception();
      }
      t_held = nullptr;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  // Told in arm order: accum's records before big-batch's, whose record pairs with them.
  for (auto& list : held) {
    for (auto& tell : list) tell();
  }
  for (const std::exception_ptr& e : failed) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace accumlab
