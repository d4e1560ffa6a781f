// The gradient check: every N-th accum step, the accumulated gradient against the same window
// as one big batch at the same weights. Immune to trajectory chaos, so it stays at rounding
// level for any run length; it shows flush-divide-by-K and BatchNorm, and changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
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
    // A float32 check above rounding must be a kink: its float64 repeat at rounding level.
    if (r.grad_equiv > tol) EXPECT_TRUE(isKinkCheck(r)) << "step " << r.step;
  }
  EXPECT_EQ(checked, kSteps / kEvery);
  const ArmSummary& accum = armOf(s, ArmKind::kAccum);
  EXPECT_EQ(accum.grad_equivalence_checks, kSteps / kEvery);
  EXPECT_LE(accum.grad_equivalence_rel_diff_without_kinks, tol);
  EXPECT_GT(accum.grad_equivalence_rel_diff_without_kinks, 0.0);  // a real comparison, not a copy
  // The trajectories may part (rounding grows); the gradient check does not care.
  ::testing::Test::RecordProperty("trajectory_rel_diff",
                                  std::to_string(accum.equivalence_rel_diff));
  EXPECT_EQ(armOf(s, ArmKind::kBigBatch).grad_equivalence_checks, 0);
}

// A check at a kink: float32 rounding puts one activation on the other side of a ReLU's 0 in
// one of the two passes, and the check reads 1e-4 … 1e-2. Seed 6 of the default experiment
// has one in its first epoch (seeds 1 and 3 have one too, seed 42 none). Each must be
// repeated in float64, agree there to rounding, and be left out of the accumulation figure;
// and widening the model for the repeat and narrowing it back must change no bit of training.
TEST(GradientCheckEdges, KinksAreFloat32RoundingThatFloat64Removes) {
  if (!std::ifstream(kFashionMnist)) GTEST_SKIP() << kFashionMnist << " is not installed";
  auto run = [](int64_t every, RecordingSink& sink) {
    ExperimentConfig c = defaultExperiment(DType::kFloat32);
    c.seed = 6;
    c.samples = 938 * 64;
    c.grad_check_every = every;
    return Trainer(c).run(sink);
  };
  RecordingSink checked, plain;
  const RunSummary s = run(1, checked);
  run(0, plain);

  int64_t kinks = 0, repeats = 0;
  double largest = 0, largest_other = 0;
  for (const StepRecord& r : checked.of(ArmKind::kAccum)) {
    ASSERT_TRUE(std::isfinite(r.grad_equiv)) << "step " << r.step;
    largest = std::max(largest, r.grad_equiv);
    if (r.grad_equiv <= kFloat32Tolerance) {
      EXPECT_TRUE(std::isnan(r.grad_equiv_f64)) << "step " << r.step << ": repeated needlessly";
      largest_other = std::max(largest_other, r.grad_equiv);
      continue;
    }
    ++repeats;
    EXPECT_LE(r.grad_equiv_f64, kFloat64Tolerance) << "step " << r.step;
    EXPECT_GT(r.grad_equiv_f64, 0.0) << "step " << r.step << ": a real repeat, not a copy";
    kinks += isKinkCheck(r);
  }
  // Measured: one, at step 870 (1.06e-2 in float32, 2.0e-16 in float64); without the repeat it
  // would read as a broken accumulation.
  EXPECT_GE(kinks, 1);
  EXPECT_EQ(kinks, repeats);
  const ArmSummary& accum = armOf(s, ArmKind::kAccum);
  EXPECT_EQ(accum.grad_equivalence_checks, 938);
  EXPECT_EQ(accum.grad_equivalence_kinks, kinks);
  EXPECT_EQ(accum.grad_equivalence_rel_diff, largest);
  EXPECT_EQ(accum.grad_equivalence_largest_kink, largest);  // every check above 1e-5 was a kink
  EXPECT_GT(accum.grad_equivalence_rel_diff, 1e-4);
  EXPECT_EQ(accum.grad_equivalence_rel_diff_without_kinks, largest_other);

  for (ArmKind arm : {ArmKind::kAccum, ArmKind::kBigBatch}) {
    const auto a = checked.of(arm), b = plain.of(arm);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].loss, b[i].loss) << toString(arm) << " step " << a[i].step;
      ASSERT_EQ(a[i].grad_norm, b[i].grad_norm) << toString(arm) << " step " << a[i].step;
    }
  }
}

// A run can have both: a kink, and a real difference above it (a flush-divide-by-K window).
// The kink's own size is kept, not the largest check's.
TEST(GradCheckTally, KeepsTheLargestKinkApartFromARealDifference) {
  GradCheckTally t;
  auto check = [&](double f32, double f64) {
    StepRecord r;
    r.grad_equiv = f32;
    r.grad_equiv_f64 = f64;
    t.add(r);
  };
  EXPECT_TRUE(std::isnan(t.max()));
  check(4e-7, kNaN);    // at rounding: not repeated
  check(3e-3, 2e-16);   // a kink
  check(0.75, 0.75);    // real: float64 finds it too
  check(1e-2, 1.5e-16); // a larger kink
  t.add(StepRecord{});  // an unchecked step
  EXPECT_EQ(t.checks, 4);
  EXPECT_EQ(t.kinks, 2);
  EXPECT_EQ(t.max_kink, 1e-2);
  EXPECT_EQ(t.max_without_kinks, 0.75);
  EXPECT_EQ(t.max(), 0.75);
  ArmSummary s;
  setGradChecks(s, t);
  EXPECT_EQ(s.grad_equivalence_largest_kink, 1e-2);
  EXPECT_EQ(s.grad_equivalence_rel_diff, 0.75);
  EXPECT_EQ(s.grad_equivalence_rel_diff_without_kinks, 0.75);
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
  const RunSummary s = Trainer(c).run(sink);
  int epoch_ends = 0;
  for (const StepRecord& r : sink.of(ArmKind::kAccum)) {
    if (r.window_samples == 37) {
      ++epoch_ends;
      EXPECT_GT(r.grad_equiv, 1e-3) << "step " << r.step;
      // Not rounding: float64 finds the same under-scaled window.
      EXPECT_GT(r.grad_equiv_f64, 1e-3) << "step " << r.step;
      EXPECT_FALSE(isKinkCheck(r)) << "step " << r.step;
    } else {
      EXPECT_LE(r.grad_equiv, kFloat32Tolerance) << "step " << r.step;
    }
  }
  EXPECT_EQ(epoch_ends, 2);
  const ArmSummary& accum = armOf(s, ArmKind::kAccum);
  EXPECT_EQ(accum.grad_equivalence_kinks, 0);
  EXPECT_GT(accum.grad_equivalence_rel_diff_without_kinks, 1e-3);  // the lessons read this one
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
