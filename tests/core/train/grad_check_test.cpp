// The gradient check: every N-th accum step, the accumulated gradient against the same window
// as one big batch at the same weights. Immune to trajectory chaos, so it stays at rounding
// level for any run length; it shows flush-divide-by-K and BatchNorm, and changes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "accumlab/trainer.h"
#include "recording_sink.h"
#include "tolerances.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::kFloat32Tolerance;
using testing::kFloat64Tolerance;
using testing::RecordingSink;

constexpr int64_t kSteps = 2000;
constexpr int64_t kEvery = 10;

// Debian's dataset-fashion-mnist (scripts/setup installs it).
constexpr const char* kFashionMnist =
    "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";

/// The default experiment: MLP 784-128-128-10 on Fashion-MNIST, m = 8, K = 8. (On separable
/// synthetic blobs the loss and the gradient vanish, and a gradient of 1e-4 computed from
/// per-sample terms of 1e-1 cannot agree to better than ~1e-5 in float32.)
ExperimentConfig defaultExperiment(DType dtype) {
  ExperimentConfig c;
  c.data = "fashion-mnist";
  c.model = "mlp";
  c.micro_batch = 8;
  c.accum = 8;
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  c.dtype = dtype;
  c.samples = kSteps * 64;
  c.eval_every = c.samples;
  c.noise_stats = false;
  c.grad_check_every = kEvery;
  c.device = "cpu";
  return c;
}

class GradientCheck : public ::testing::TestWithParam<DType> {};

TEST_P(GradientCheck, HoldsAtEveryCheckedStepOf2000) {
  if (!std::ifstream(kFashionMnist)) GTEST_SKIP() << kFashionMnist << " is not installed";
  const ExperimentConfig c = defaultExperiment(GetParam());
  RecordingSink sink;
  const RunSummary s = Trainer(c).run(sink);
  const double tol = GetParam() == DType::kFloat32 ? kFloat32Tolerance : kFloat64Tolerance;
  int64_t checked = 0;
  for (const StepRecord& r : sink.of(ArmKind::kAccum)) {
    EXPECT_EQ(std::isfinite(r.grad_equiv), r.step % kEvery == 0) << "step " << r.step;
    if (!std::isfinite(r.grad_equiv)) continue;
    ++checked;
    ASSERT_LE(r.grad_equiv, tol) << "step " << r.step;
  }
  EXPECT_EQ(checked, kSteps / kEvery);
  const ArmSummary& accum = armOf(s, ArmKind::kAccum);
  EXPECT_EQ(accum.grad_equivalence_checks, kSteps / kEvery);
  EXPECT_LE(accum.grad_equivalence_rel_diff, tol);
  EXPECT_GT(accum.grad_equivalence_rel_diff, 0.0);  // a real comparison, not a copy
  // The trajectories may part (rounding grows); the gradient check does not care.
  ::testing::Test::RecordProperty("trajectory_rel_diff",
                                  std::to_string(accum.equivalence_rel_diff));
  EXPECT_EQ(armOf(s, ArmKind::kBigBatch).grad_equivalence_checks, 0);
}

INSTANTIATE_TEST_SUITE_P(Engine, GradientCheck, ::testing::Values(DType::kFloat32, DType::kFloat64),
                         [](const auto& info) { return toString(info.param); });

TEST(GradientCheckEdges, FlushDivideByKShowsAtEachEpochEnd) {
  ExperimentConfig c;
  c.data = "blobs:64";
  c.synthetic_samples = 933;  // 14 full windows of 64, then 16 + 16 + 5
  c.val_fraction = 0;
  c.model = "mlp:32";
  c.micro_batch = 16;
  c.accum = 4;
  c.arms = {ArmKind::kAccum};
  c.window_policy = WindowPolicy::kFlushDivideByK;
  c.epochs = 2;
  c.grad_check_every = 1;
  c.device = "cpu";
  RecordingSink sink;
  Trainer(c).run(sink);
  int epoch_ends = 0;
  for (const StepRecord& r : sink.of(ArmKind::kAccum)) {
    if (r.window_samples == 37) {
      ++epoch_ends;
      EXPECT_GT(r.grad_equiv, 1e-3) << "step " << r.step;
    } else {
      EXPECT_LE(r.grad_equiv, kFloat32Tolerance) << "step " << r.step;
    }
  }
  EXPECT_EQ(epoch_ends, 2);
}

TEST(GradientCheckEdges, BatchNormShowsItsBatchDependence) {
  ExperimentConfig c;
  c.data = "blobs:1x12x12";
  c.synthetic_samples = 1000;
  c.model = "cnn_bn";
  c.micro_batch = 8;
  c.accum = 4;
  c.arms = {ArmKind::kAccum};
  c.samples = 10 * 32;
  c.grad_check_every = 1;
  c.device = "cpu";
  RecordingSink sink;
  const RunSummary s = Trainer(c).run(sink);
  EXPECT_GT(armOf(s, ArmKind::kAccum).grad_equivalence_rel_diff, 1e-3);
}

TEST(GradientCheckEdges, ChangesNothingAndNeedsNoBigBatchArm) {
  auto run = [](int64_t every) {
    ExperimentConfig c;
    c.data = "blobs:1x12x12";
    c.synthetic_samples = 1000;
    c.model = "cnn_bn";  // BatchNorm: the check must restore the running statistics too
    c.micro_batch = 8;
    c.accum = 4;
    c.arms = {ArmKind::kNoAccum, ArmKind::kAccum};
    c.samples = 40 * 32;
    c.eval_every = 20 * 32;
    c.grad_check_every = every;
    c.device = "cpu";
    RecordingSink sink;
    Trainer(c).run(sink);
    return sink;
  };
  const RecordingSink checked = run(5), plain = run(0);
  const auto a = checked.of(ArmKind::kAccum), b = plain.of(ArmKind::kAccum);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].loss, b[i].loss) << "step " << i + 1;  // bitwise: the check left no trace
    EXPECT_EQ(std::isfinite(a[i].grad_equiv), a[i].step % 5 == 0);
    EXPECT_TRUE(std::isnan(b[i].grad_equiv));
  }
  ASSERT_EQ(checked.evals.size(), plain.evals.size());
  for (size_t i = 0; i < checked.evals.size(); ++i) {
    EXPECT_EQ(checked.evals[i].loss, plain.evals[i].loss);
  }
  for (const StepRecord& r : checked.of(ArmKind::kNoAccum)) EXPECT_TRUE(std::isnan(r.grad_equiv));
}

}  // namespace
}  // namespace accumlab
