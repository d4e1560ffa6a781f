// SPDX-License-Identifier: GPL-3.0-or-later
// Out-of-memory recovery on a GPU (arm_stepper.cpp; out_of_memory_test.cpp is the CPU
// version under a memory budget). The CUDA caching allocator is capped between the peaks of
// m = 4096 and m = 8192 (setMemoryFraction), so the real device allocator fails: the arm
// starts its first window over in smaller pieces and goes on with the update of a run that
// used those pieces from the start.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "accumlab/trainer.h"
#include "cuda_device.h"
#include "data/dataset_factory.h"
#include "memory/cuda_allocator.h"
#include "models/model.h"
#include "recording_sink.h"
#include "train/arm_stepper.h"

namespace accumlab {
namespace {

using testing::cudaTestDevice;
using testing::RecordingSink;

// Big enough that activations, not weights, set the peak: an MLP 1024-4096-4096 in float64
// holds about 128 MiB per 4096 samples in each hidden activation.
constexpr int64_t kCudaOomM = 8192;
constexpr int64_t kCudaOomK = 2;
constexpr int64_t kWindows = 3;

ExperimentConfig config(int64_t m, int64_t k) {
  ExperimentConfig c;
  c.data = "blobs:1024";
  c.synthetic_samples = 20000;  // the windows run on across epochs (window policy stream)
  c.model = "mlp:4096,4096";
  c.micro_batch = m;
  c.accum = k;
  c.arms = {ArmKind::kAccum};
  c.dtype = DType::kFloat64;
  c.optimizer.momentum = 0.0;  // plain SGD: every window has the same peak
  c.samples = kWindows * kCudaOomM * kCudaOomK;
  c.eval_every = c.samples;
  c.device = cudaTestDevice();
  c.probe_repeats = 0;
  c.noise_stats = false;
  c.grad_check_every = 0;
  return c;
}

/// Lifts the allocator cap when the test ends, passed or not (it is process-wide).
class MemoryCap {
 public:
  MemoryCap(const torch::Device& device, int64_t bytes) : device_(device) {
    releaseCudaCache();  // what earlier runs left cached would count against the cap
    setCudaMemoryFraction(
        device_, static_cast<double>(bytes) / static_cast<double>(cudaTotalMemory(device_)));
  }
  ~MemoryCap() { setCudaMemoryFraction(device_, 1.0); }
  MemoryCap(const MemoryCap&) = delete;
  MemoryCap& operator=(const MemoryCap&) = delete;

 private:
  torch::Device device_;
};

struct ArmRun {
  std::vector<torch::Tensor> weights;  ///< on the CPU
  std::vector<std::string> splits;     ///< each window's split message ("" when none)
  int64_t peak = -1;                   ///< the largest window peak of allocated bytes
  int64_t piece_cap = 0;
};

/// Trains one accum arm of `c` to its budget on the GPU, as the Trainer does.
ArmRun trainArm(const ExperimentConfig& c) {
  const torch::Device device(c.device);
  const Dataset data = loadDataset(c);
  auto factory = makeModelFactory(c.model, data.sample_shape, data.num_outputs, c.seed);
  auto model = factory->create();
  model->to(device, torch::kFloat64);
  ArmStepper stepper(ArmKind::kAccum, std::move(model), data, c, device, torch::kFloat64, c.samples,
                     std::make_unique<ArmMemory>(device));
  ArmRun run;
  while (stepper.samplesLeft() > 0) {
    const WindowOutcome out = stepper.step();
    EXPECT_EQ(out.end, WindowEnd::kStepped) << out.message;
    if (out.end != WindowEnd::kStepped) break;
    run.splits.push_back(out.split_message);
    run.peak = std::max(run.peak, out.record.peak_tensor_bytes);
  }
  for (const auto& p : stepper.parameters()) run.weights.push_back(p.detach().cpu().clone());
  run.piece_cap = stepper.pieceCap();
  return run;
}

/// A cap three quarters of the way from the peak of m = 4096 to that of m = 8192: the big
/// micro-batch cannot fit, half of it fits with room for the allocator's rounding.
int64_t capBetweenHalfAndFull() {
  const int64_t full = trainArm(config(kCudaOomM, kCudaOomK)).peak;
  const int64_t half = trainArm(config(kCudaOomM / 2, 2 * kCudaOomK)).peak;
  EXPECT_GT(full, half);
  ::testing::Test::RecordProperty("peak_m8192_bytes", std::to_string(full));
  ::testing::Test::RecordProperty("peak_m4096_bytes", std::to_string(half));
  return half + (full - half) * 3 / 4;
}

TEST(CudaOutOfMemory, RecoversAtTheFirstWindowWithTheUpdateOfTheSmallerPieces) {
  ACCUMLAB_SKIP_WITHOUT_CUDA();
  const torch::Device device(cudaTestDevice());
  const int64_t cap = capBetweenHalfAndFull();
  ArmRun recovered;
  {
    MemoryCap limit(device, cap);
    recovered = trainArm(config(kCudaOomM, kCudaOomK));
  }
  ASSERT_EQ(recovered.splits.size(), static_cast<size_t>(kWindows));
  ::testing::Test::RecordProperty("event", recovered.splits.front());
  EXPECT_EQ(recovered.splits.front().rfind("out of memory at m=8192: continuing with ", 0), 0u)
      << recovered.splits.front();
  for (size_t i = 1; i < recovered.splits.size(); ++i) {
    EXPECT_EQ(recovered.splits[i], "") << "window " << i + 1 << " should fit at once";
  }
  ASSERT_GT(recovered.piece_cap, 0);
  ASSERT_LE(recovered.piece_cap, kCudaOomM / 2);

  // The same windows cut into those pieces from the start: the same updates.
  const int64_t pieces = kCudaOomM * kCudaOomK / recovered.piece_cap;
  const ArmRun direct = trainArm(config(recovered.piece_cap, pieces));
  ASSERT_EQ(recovered.weights.size(), direct.weights.size());
  for (size_t i = 0; i < direct.weights.size(); ++i) {
    const double scale = direct.weights[i].abs().max().item<double>();
    const double diff = (recovered.weights[i] - direct.weights[i]).abs().max().item<double>();
    EXPECT_LE(diff, 1e-12 * scale) << "parameter " << i;
  }
}

TEST(CudaOutOfMemory, TheTrainerReportsTheRecoveryAndFinishes) {
  ACCUMLAB_SKIP_WITHOUT_CUDA();
  const torch::Device device(cudaTestDevice());
  const int64_t cap = capBetweenHalfAndFull();
  RecordingSink sink;
  RunSummary s;
  {
    MemoryCap limit(device, cap);
    Trainer trainer(config(kCudaOomM, kCudaOomK));
    s = trainer.run(sink);
  }
  std::vector<std::string> seen;
  for (const EventRecord& e : sink.events) {
    if (e.kind == EventKind::kOutOfMemory) seen.push_back(e.message);
  }
  ASSERT_EQ(seen.size(), 1u) << ::testing::PrintToString(seen);
  ::testing::Test::RecordProperty("event", seen.front());
  std::printf("out-of-memory event: %s\n", seen.front().c_str());
  ASSERT_EQ(s.arms.size(), 1u);
  EXPECT_EQ(s.arms[0].status, ArmStatus::kFinished) << s.arms[0].message;
  EXPECT_EQ(s.arms[0].samples_seen, kWindows * kCudaOomM * kCudaOomK);
  EXPECT_EQ(s.arms[0].micro_batch, kCudaOomM);  // the update it makes, not the pieces
}

}  // namespace
}  // namespace accumlab
