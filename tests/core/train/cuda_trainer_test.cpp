// SPDX-License-Identifier: GPL-3.0-or-later
// The trainer on a GPU as the desktop app runs it (trainer.cpp): on a background thread of
// its own, with that thread's CUDA device set by the trainer, three paired arms, paused and
// resumed from another thread.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "accumlab/trainer.h"
#include "cuda_device.h"
#include "recording_sink.h"
#include "tolerances.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::cudaTestDevice;
using testing::kFloat32Tolerance;
using testing::RecordingSink;

// The accum step at which the controller pauses the run.
constexpr int64_t kPauseAtStep = 20;
// How long the run stays paused, and how long the controller waits for the pause to land.
constexpr auto kSettle = std::chrono::milliseconds(300);
constexpr auto kPaused = std::chrono::milliseconds(500);

TEST(CudaTrainer, TrainsPairedArmsOnABackgroundThreadThroughPauseAndResume) {
  ACCUMLAB_SKIP_WITHOUT_CUDA();
  ExperimentConfig c;
  c.data = "blobs";
  c.synthetic_samples = 4000;
  c.model = "mlp:32";
  c.micro_batch = 8;
  c.accum = 4;
  c.arms = {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch};
  c.samples = 8000;
  c.eval_every = 2000;
  c.device = cudaTestDevice();
  const int64_t expected_device = cudaDeviceCount() - 1;

  Trainer trainer(c);
  RecordingSink sink;
  std::atomic<int64_t> steps{0};
  std::atomic<bool> reached{false};
  std::atomic<int> wrong_device{-2};  // the first current device seen that is not the run's
  std::thread::id training_thread;
  sink.on_step = [&](const StepRecord& r) {  // on the training thread
    ++steps;
    const int current = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getDevice().index();
    if (current != expected_device) wrong_device = current;
    if (r.arm == ArmKind::kAccum && r.step == kPauseAtStep) reached = true;
  };

  RunSummary summary;
  std::string error;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    training_thread = std::this_thread::get_id();
    try {
      summary = trainer.run(sink);
    } catch (const std::exception& e) {
      error = e.what();
    }
    done = true;
  });
  while (!reached && !done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  trainer.requestPause();
  std::this_thread::sleep_for(kSettle);  // the window in flight ends, then the loop waits
  const int64_t before = steps;
  std::this_thread::sleep_for(kPaused);
  const int64_t during = steps - before;
  trainer.requestResume();
  worker.join();
  ASSERT_EQ(error, "");

  EXPECT_NE(training_thread, std::this_thread::get_id());
  EXPECT_EQ(during, 0) << "steps were taken while paused";
  EXPECT_EQ(wrong_device.load(), -2)
      << "the training thread's CUDA device was cuda:" << wrong_device.load() << ", not the run's";
  EXPECT_EQ(summary.info.device, cudaTestDevice());
  for (const ArmSummary& a : summary.arms) {
    EXPECT_EQ(a.status, ArmStatus::kFinished) << toString(a.arm) << ": " << a.message;
    EXPECT_EQ(a.samples_seen, c.samples) << toString(a.arm);
  }
  std::vector<std::string> kinds;
  for (const EventRecord& e : sink.events) {
    if (e.kind == EventKind::kPause || e.kind == EventKind::kResume)
      kinds.push_back(toString(e.kind));
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"pause", "resume"}));
  // Paired: accum and big-batch took the same updates through the pause.
  const ArmSummary& accum = armOf(summary, ArmKind::kAccum);
  EXPECT_EQ(accum.steps, armOf(summary, ArmKind::kBigBatch).steps);
  EXPECT_LE(accum.equivalence_rel_diff, kFloat32Tolerance);
  ::testing::Test::RecordProperty("equivalence_rel_diff",
                                  std::to_string(accum.equivalence_rel_diff));
}

}  // namespace
}  // namespace accumlab
