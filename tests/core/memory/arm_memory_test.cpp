// SPDX-License-Identifier: GPL-3.0-or-later
// Peak tensor memory per arm (core/memory/arm_memory.cpp, measured by the Trainer): each arm
// counts its own tensors, so accum costs what no-accum costs and big-batch costs more.
#include "memory/arm_memory.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>

#include "accumlab/trainer.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::RecordingSink;

/// The CNN on 28×28 one-channel images, m = 16, K = 16, two windows per arm.
ExperimentConfig cnnConfig() {
  ExperimentConfig c;
  c.data = "blobs:1x28x28";
  c.synthetic_samples = 1200;
  c.model = "cnn";
  c.micro_batch = 16;
  c.accum = 16;
  c.samples = 512;
  c.device = "cpu";
  c.threads = 1;
  return c;
}

TEST(ArmMemory, EveryStepRecordsItsWindowsPeakAndTheSummaryTheLargest) {
  Trainer trainer(cnnConfig());
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  for (const ArmSummary& a : s.arms) {
    int64_t largest = -1;
    for (const StepRecord& r : sink.of(a.arm)) {
      EXPECT_GT(r.peak_tensor_bytes, 0) << toString(a.arm) << " step " << r.step;
      largest = std::max(largest, r.peak_tensor_bytes);
    }
    EXPECT_EQ(a.peak_tensor_bytes, largest) << toString(a.arm);
    // At least the weights, their gradients and SGD's momentum (float32), and one
    // micro-batch of inputs.
    const int64_t floor = 3 * 4 * s.info.parameters + a.micro_batch * 28 * 28 * 4;
    EXPECT_GT(a.peak_tensor_bytes, floor) << toString(a.arm);
  }
}

TEST(ArmMemory, AccumCostsWhatNoAccumCostsAndBigBatchMore) {
  Trainer trainer(cnnConfig());
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  const double no_accum = armOf(s, ArmKind::kNoAccum).peak_tensor_bytes;
  const double accum = armOf(s, ArmKind::kAccum).peak_tensor_bytes;
  const double big = armOf(s, ArmKind::kBigBatch).peak_tensor_bytes;
  std::printf("peak tensors: no-accum 16x1 %.0f B, accum 16x16 %.0f B, big-batch 256x1 %.0f B\n",
              no_accum, accum, big);
  // Same micro-batch: the same activations. Accum adds only the K micro-batch losses kept
  // for the window's statistics and the noise hooks' norms (a few hundred bytes).
  EXPECT_NEAR(accum / no_accum, 1.0, 0.05);
  // Big-batch holds the activations of 256 samples at once: ~16× those of 16, above the
  // same fixed cost of weights and gradients.
  EXPECT_GT(big / accum, 4.0);
}

TEST(ArmMemory, GradientCheckIsNotChargedToTheWindow) {
  // The check runs the window again as one big batch: a measurement, not accum's training.
  auto peaks = [](int64_t grad_check_every) {
    ExperimentConfig c = cnnConfig();
    c.arms = {ArmKind::kAccum};
    c.grad_check_every = grad_check_every;
    Trainer trainer(c);
    RecordingSink sink;
    trainer.run(sink);
    std::vector<int64_t> out;
    for (const StepRecord& r : sink.steps) out.push_back(r.peak_tensor_bytes);
    return out;
  };
  EXPECT_EQ(peaks(1), peaks(0));
}

TEST(ArmMemory, AdamStateIsCounted) {
  // Adam keeps two moments per weight: 2 × 4 bytes per parameter more than SGD without
  // momentum, which keeps nothing.
  auto peak = [](OptimizerKind kind) {
    ExperimentConfig c = cnnConfig();
    c.arms = {ArmKind::kNoAccum};
    c.optimizer.kind = kind;
    c.optimizer.momentum = 0.0;
    Trainer trainer(c);
    RecordingSink sink;
    const RunSummary s = trainer.run(sink);
    return std::make_pair(armOf(s, ArmKind::kNoAccum).peak_tensor_bytes, s.info.parameters);
  };
  const auto [sgd, params] = peak(OptimizerKind::kSgd);
  const auto [adam, unused] = peak(OptimizerKind::kAdam);
  const double extra = static_cast<double>(adam - sgd);
  EXPECT_NEAR(extra, 8.0 * static_cast<double>(params), 0.05 * 8.0 * static_cast<double>(params));
}

}  // namespace
}  // namespace accumlab
