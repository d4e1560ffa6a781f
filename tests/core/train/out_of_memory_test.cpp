// SPDX-License-Identifier: GPL-3.0-or-later
// Out-of-memory recovery (core/train/arm_stepper.cpp, docs/measurements.md): under a CPU budget
// that m = 64 exceeds and m = 32 fits, an arm starts its first window over in halves and goes on at
// 32 × 2K, with the weights of a run that used 32 × 2K from the start; an arm fails only when
// pieces of one sample do not fit.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "accumlab/trainer.h"
#include "data/dataset_factory.h"
#include "models/model.h"
#include "recording_sink.h"
#include "train/arm_stepper.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::RecordingSink;

constexpr int64_t kOomM = 64;
constexpr int64_t kOomK = 4;

/// An MLP on spirals in float64, plain SGD (no optimizer state, so every window has the same
/// peak), six windows of 64 × 4.
ExperimentConfig config(int64_t m, int64_t k) {
  ExperimentConfig c;
  c.data = "spirals";
  c.synthetic_samples = 2000;
  c.model = "mlp";
  c.micro_batch = m;
  c.accum = k;
  c.arms = {ArmKind::kAccum};
  c.dtype = DType::kFloat64;
  c.optimizer.momentum = 0.0;
  c.samples = 6 * kOomM * kOomK;
  c.device = "cpu";
  c.threads = 1;
  c.probe_repeats = 0;
  return c;
}

struct ArmRun {
  std::vector<torch::Tensor> weights;
  std::vector<std::string> splits;  ///< each window's split message ("" when none)
  int64_t peak = -1;                ///< the largest window peak of tensor bytes
  int64_t piece_cap = 0;
};

/// Trains one accum arm of `c` to its budget under `budget` bytes (0: none), as the Trainer
/// does: the arm's model is built while the arm is charged.
ArmRun trainArm(const ExperimentConfig& c, int64_t budget) {
  const Dataset data = loadDataset(c);
  auto factory = makeModelFactory(c.model, data.sample_shape, data.num_outputs, c.seed);
  auto memory = std::make_unique<ArmMemory>(torch::kCPU, budget);
  std::unique_ptr<ArmStepper> stepper;
  {
    const auto charge = memory->charge();
    auto model = factory->create();
    model->to(torch::kCPU, torch::kFloat64);
    stepper = std::make_unique<ArmStepper>(ArmKind::kAccum, std::move(model), data, c, torch::kCPU,
                                           torch::kFloat64, c.samples, std::move(memory));
  }
  ArmRun run;
  while (stepper->samplesLeft() > 0) {
    const WindowOutcome out = stepper->step();
    EXPECT_EQ(out.end, WindowEnd::kStepped) << out.message;
    if (out.end != WindowEnd::kStepped) break;
    run.splits.push_back(out.split_message);
    run.peak = std::max(run.peak, out.record.peak_tensor_bytes);
  }
  for (const auto& p : stepper->parameters()) run.weights.push_back(p.detach().clone());
  run.piece_cap = stepper->pieceCap();
  return run;
}

/// A budget halfway between the peaks of m = 32 and m = 64 (both × the same window).
int64_t budgetBetween32And64() {
  const int64_t p64 = trainArm(config(kOomM, kOomK), 0).peak;
  const int64_t p32 = trainArm(config(kOomM / 2, 2 * kOomK), 0).peak;
  EXPECT_GT(p64, p32);
  return (p32 + p64) / 2;
}

TEST(OutOfMemory, RecoversAtTheFirstWindowWithTheWeightsOfHalfTheMicroBatch) {
  const int64_t budget = budgetBetween32And64();
  const ArmRun recovered = trainArm(config(kOomM, kOomK), budget);
  const ArmRun halves = trainArm(config(kOomM / 2, 2 * kOomK), 0);

  ASSERT_EQ(recovered.splits.size(), 6u);
  EXPECT_EQ(recovered.splits.front(),
            "out of memory at m=64: continuing with 32×8, the same update in smaller pieces");
  for (size_t i = 1; i < recovered.splits.size(); ++i) {
    EXPECT_EQ(recovered.splits[i], "") << "window " << i + 1 << " should fit at once";
  }
  EXPECT_EQ(recovered.piece_cap, kOomM / 2);
  EXPECT_LE(recovered.peak, budget) << "the budget is enforced, failed attempt included";

  ASSERT_EQ(recovered.weights.size(), halves.weights.size());
  for (size_t i = 0; i < halves.weights.size(); ++i) {
    const double scale = halves.weights[i].abs().max().item<double>();
    const double diff = (recovered.weights[i] - halves.weights[i]).abs().max().item<double>();
    EXPECT_LE(diff, 1e-12 * scale) << "parameter " << i;
  }
}

TEST(OutOfMemory, TheTrainerReportsTheSplitAndKeepsAccumAndBigBatchEqual) {
  ExperimentConfig c = config(kOomM, kOomK);
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  c.memory_budget = budgetBetween32And64();
  Trainer trainer(c);
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);

  std::vector<std::string> seen;
  for (const EventRecord& e : sink.events) {
    if (e.kind == EventKind::kOutOfMemory) seen.push_back(armName(e) + ": " + e.message);
  }
  // Big-batch halves 256 until its pieces fit: 128, 64 and 32 are tried in its first window.
  ASSERT_EQ(seen.size(), 2u) << ::testing::PrintToString(seen);
  EXPECT_EQ(
      seen[0],
      "accum: out of memory at m=64: continuing with 32×8, the same update in smaller pieces");
  EXPECT_EQ(
      seen[1],
      "big-batch: out of memory at m=256: continuing with 32×8, the same update in smaller pieces");
  for (const ArmSummary& a : s.arms) {
    EXPECT_EQ(a.status, ArmStatus::kFinished) << toString(a.arm) << ": " << a.message;
    EXPECT_LE(a.peak_tensor_bytes, c.memory_budget) << toString(a.arm);
  }
  // The arms report the update they make, not the pieces it was computed in.
  EXPECT_EQ(armOf(s, ArmKind::kAccum).micro_batch, kOomM);
  EXPECT_EQ(armOf(s, ArmKind::kBigBatch).micro_batch, kOomM * kOomK);
  EXPECT_EQ(armSizesText(armOf(s, ArmKind::kAccum)), "64 x 4 (as 32 x 8)");
  EXPECT_EQ(armSizesText(armOf(s, ArmKind::kBigBatch), " × "), "256 × 1 (as 32 × 8)");
  for (const StepRecord& r : sink.of(ArmKind::kAccum)) EXPECT_EQ(r.accum, kOomK);
  // Both now sum the same 32-sample pieces in the same order: the same update exactly.
  EXPECT_LE(armOf(s, ArmKind::kAccum).equivalence_rel_diff, 1e-12);
}

TEST(OutOfMemory, AnArmFailsInOneSentenceWhenOneSampleDoesNotFit) {
  ExperimentConfig c = config(kOomM, kOomK);
  c.arms = {ArmKind::kNoAccum, ArmKind::kAccum};
  c.memory_budget = 4096;  // less than the MLP's weights
  Trainer trainer(c);
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  for (const ArmSummary& a : s.arms) {
    EXPECT_EQ(a.status, ArmStatus::kFailed) << toString(a.arm);
    EXPECT_EQ(a.steps, 0) << toString(a.arm);
    EXPECT_EQ(a.message.rfind("out of memory even with micro-batches of one sample: the weights, "
                              "gradients and optimizer state leave no room in the memory budget "
                              "of 4 KiB (they take ",
                              0),
              0u)
        << a.message;
    EXPECT_EQ(a.message.find('\n'), std::string::npos) << "one sentence: " << a.message;
  }
}

TEST(OutOfMemory, SizesTextSaysWhatRanForUnevenPieces) {
  ArmSummary a;
  a.micro_batch = 5;
  a.accum = 3;
  EXPECT_EQ(armSizesText(a), "5 x 3");
  a.memory_piece = 3;  // pieces of 3 and 2
  EXPECT_EQ(armSizesText(a), "5 x 3 (as ≤3 x 6)");
}

TEST(OutOfMemory, WithoutABudgetNothingIsSplit) {
  const ArmRun run = trainArm(config(kOomM, kOomK), 0);
  for (const std::string& s : run.splits) EXPECT_EQ(s, "");
  EXPECT_EQ(run.piece_cap, 0);
}

}  // namespace
}  // namespace accumlab
