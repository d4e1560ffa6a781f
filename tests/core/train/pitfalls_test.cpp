// SPDX-License-Identifier: GPL-3.0-or-later
// The pitfall arms against theory (docs/pitfalls.md): each wrong recipe's gradient as written
// down by hand from the micro-batches' own mean gradients, in float64 on a linear model.
#include "train/pitfalls.h"

#include <gtest/gtest.h>

#include <cmath>

#include "accumlab/input_error.h"
#include "memory/arm_memory.h"
#include "tiny_linear.h"
#include "train/arm_stepper.h"
#include "train/grad_window.h"

namespace accumlab {
namespace {

using testing::TinyLinear;
using testing::unevenPlan;
using Grads = std::vector<torch::Tensor>;

Grads scaled(const Grads& g, double c) {
  Grads out;
  for (const auto& t : g) out.push_back(t * c);
  return out;
}

Grads added(const Grads& a, const Grads& b) {
  Grads out;
  for (size_t i = 0; i < a.size(); ++i) out.push_back(a[i] + b[i]);
  return out;
}

double norm(const Grads& g) {
  double sq = 0;
  for (const auto& t : g) sq += t.pow(2).sum().item<double>();
  return std::sqrt(sq);
}

/// |grad − expected| / |expected| after `arm`'s version of the window of `sizes`.
struct PitfallCase {
  explicit PitfallCase(std::vector<int64_t> window_sizes) : sizes(std::move(window_sizes)) {
    int64_t n = 0;
    for (int64_t s : sizes) n += s;
    t = std::make_unique<TinyLinear>(n);
    const WindowPlan plan = unevenPlan(sizes, false);
    for (const auto& rows : plan.micro_batches) own.push_back(t->meanGradient(rows));
    big = t->meanGradient(torch::arange(n, torch::kLong));
  }
  double run(ArmKind arm, const Grads& expected, double clip_norm = 0) {
    WindowPlan plan = unevenPlan(sizes, false);
    applyPitfall(arm, static_cast<int64_t>(sizes.size()), clip_norm, plan);
    GradWindow window(*t->model, t->data, torch::kCPU, torch::kFloat64);
    window.run(plan, true);
    Grads grads;
    for (const auto& p : t->model->parameters()) grads.push_back(p.grad());
    Grads diff;
    for (size_t i = 0; i < grads.size(); ++i) diff.push_back(grads[i] - expected[i]);
    return norm(diff) / norm(expected);
  }
  std::vector<int64_t> sizes;
  std::unique_ptr<TinyLinear> t;
  std::vector<Grads> own;  ///< each micro-batch's mean gradient g_i
  Grads big;               ///< the window as one big batch
};

TEST(Pitfalls, SumIsKTimesTheBigBatch) {
  PitfallCase c({8, 8, 8, 8});
  EXPECT_LE(c.run(ArmKind::kPitfallSum, scaled(c.big, 4.0)), 1e-12);
}

TEST(Pitfalls, LastOnlyIsTheLastMicroBatchsGradient) {
  PitfallCase c({8, 8, 8, 8});
  EXPECT_LE(c.run(ArmKind::kPitfallLastOnly, c.own.back()), 1e-12);
  EXPECT_GT(c.run(ArmKind::kPitfallLastOnly, c.big), 1e-3) << "differs from the big batch";
}

TEST(Pitfalls, DoubleLastAddsTheLastMicroBatchTwice) {
  PitfallCase c({8, 8, 8, 8});
  Grads sum = c.own[0];
  for (size_t i = 1; i < c.own.size(); ++i) sum = added(sum, c.own[i]);
  EXPECT_LE(c.run(ArmKind::kPitfallDoubleLast, scaled(added(sum, c.own.back()), 0.25)), 1e-12);
}

TEST(Pitfalls, MeanOfMeansIsExactOnlyWhenMicroBatchesAreEqual) {
  PitfallCase even({8, 8, 8, 8});
  EXPECT_LE(even.run(ArmKind::kPitfallMeanOfMeans, even.big), 1e-12);

  // 16 + 16 + 5: every micro-batch weighs 1/3 instead of its share of the 37 samples.
  PitfallCase uneven({16, 16, 5});
  const Grads mean_of_means =
      scaled(added(added(uneven.own[0], uneven.own[1]), uneven.own[2]), 1.0 / 3.0);
  EXPECT_LE(uneven.run(ArmKind::kPitfallMeanOfMeans, mean_of_means), 1e-12);
  // Off from the big batch by exactly Σ (1/3 − n_i/37) g_i, the weight the short one gains.
  Grads predicted_error = scaled(uneven.own[0], 1.0 / 3 - 16.0 / 37);
  predicted_error = added(predicted_error, scaled(uneven.own[1], 1.0 / 3 - 16.0 / 37));
  predicted_error = added(predicted_error, scaled(uneven.own[2], 1.0 / 3 - 5.0 / 37));
  const double off = uneven.run(ArmKind::kPitfallMeanOfMeans, uneven.big);
  EXPECT_NEAR(off, norm(predicted_error) / norm(uneven.big), 1e-12);
  EXPECT_GT(off, 1e-3);
}

TEST(Pitfalls, ClipEachClipsEveryMicroBatchsGradientBeforeAdding) {
  PitfallCase c({8, 8, 8, 8});
  // A norm between the smallest and the largest |g_i|, so some are clipped and some not.
  std::vector<double> norms;
  for (const Grads& g : c.own) norms.push_back(norm(g));
  const double max_norm = 0.5 * (*std::min_element(norms.begin(), norms.end()) +
                                 *std::max_element(norms.begin(), norms.end()));
  Grads expected = scaled(c.own[0], 0.0);
  int clipped = 0;
  for (size_t i = 0; i < c.own.size(); ++i) {
    // PyTorch's clip_grad_norm_: scale by max_norm / (|g| + 1e-6) when that is below 1.
    const double factor = std::min(1.0, max_norm / (norms[i] + 1e-6));
    clipped += factor < 1.0;
    expected = added(expected, scaled(c.own[i], factor * 8.0 / 32.0));
  }
  ASSERT_GT(clipped, 0);
  ASSERT_LT(clipped, 4);
  EXPECT_LE(c.run(ArmKind::kPitfallClipEach, expected, max_norm), 1e-12);
}

TEST(Pitfalls, AccumsOwnArmsAndPlainArmsAreUnchanged) {
  for (ArmKind arm :
       {ArmKind::kAccum, ArmKind::kPitfallNoZero, ArmKind::kPitfallSchedulePerMicro}) {
    PitfallCase c({16, 16, 5});
    EXPECT_LE(c.run(arm, c.big), 1e-12) << toString(arm);
  }
}

/// Trains `arm` for five windows of 3 × 4 with plain SGD (no momentum) and returns its
/// weights, and the same five windows written out by hand with `grad_of(window, G_window)`
/// and `lr_of(samples seen before the window)`.
struct FiveWindows {
  ExperimentConfig config;
  TinyLinear t{60};
  FiveWindows() {
    config.micro_batch = 4;
    config.accum = 3;
    config.samples = 60;
    config.optimizer.lr = 0.05;
    config.optimizer.momentum = 0;
    config.noise_stats = false;
    config.grad_check_every = 0;
    config.dtype = DType::kFloat64;
    config.seed = 5;
  }
  Grads trained(ArmKind arm) {
    auto model = makeModelFactory("logreg", {3}, 1, 11)->create();
    model->to(torch::kCPU, torch::kFloat64);
    ArmStepper stepper(arm, std::move(model), t.data, config, torch::kCPU, torch::kFloat64,
                       config.samples, std::make_unique<ArmMemory>(torch::kCPU));
    for (int w = 0; w < 5; ++w) EXPECT_EQ(stepper.step().end, WindowEnd::kStepped);
    Grads weights;
    for (const auto& p : stepper.parameters()) weights.push_back(p.detach().clone());
    return weights;
  }
  template <class GradOf, class LrOf>
  Grads byHand(GradOf grad_of, LrOf lr_of) {
    SampleStream stream(t.data.trainSize(), config.seed);
    Grads accumulated;
    for (int w = 0; w < 5; ++w) {
      const int64_t before = stream.consumed();
      const WindowPlan plan = planWindow(stream, 4, 3, WindowPolicy::kStream, 60 - before);
      const Grads g = t.meanGradient(torch::cat(plan.micro_batches));
      accumulated = grad_of(accumulated, g);
      torch::NoGradGuard no_grad;
      auto params = t.model->parameters();
      for (size_t i = 0; i < params.size(); ++i) params[i].sub_(accumulated[i] * lr_of(before));
    }
    Grads weights;
    for (const auto& p : t.model->parameters()) weights.push_back(p.detach().clone());
    return weights;
  }
};

double maxDiff(const Grads& a, const Grads& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  }
  return worst;
}

TEST(Pitfalls, NoZeroAddsEveryEarlierWindowsGradient) {
  FiveWindows f;
  const Grads trained = f.trained(ArmKind::kPitfallNoZero);
  const Grads expected = f.byHand(
      [](const Grads& so_far, const Grads& g) { return so_far.empty() ? g : added(so_far, g); },
      [](int64_t) { return 0.05; });
  EXPECT_LE(maxDiff(trained, expected), 1e-12);
}

TEST(Pitfalls, SchedulePerMicroRunsTheScheduleKTimesTooFast) {
  FiveWindows f;
  f.config.optimizer.schedule = LrSchedule::kCosine;
  const Grads trained = f.trained(ArmKind::kPitfallSchedulePerMicro);
  // Cosine over the 60-sample budget, stepped after each micro-batch (each step a window of
  // 12): before the first update it stands at 24 samples, and reaches 0 after 12 samples.
  const auto lr = [](int64_t seen) {
    const double progress = std::min(1.0, (3.0 * static_cast<double>(seen) + 24.0) / 60.0);
    return 0.05 * 0.5 * (1.0 + std::cos(M_PI * progress));
  };
  const Grads expected = f.byHand([](const Grads&, const Grads& g) { return g; }, lr);
  EXPECT_LE(maxDiff(trained, expected), 1e-12);
}

/// The LR of each update of `arm` over two epochs of 30 samples (m = 4, K = 3: two full
/// windows of 12, then one of 6 = 4 + 2 at each epoch end) under `policy`, with a warm-up far
/// longer than the run, so that every position has an LR of its own.
std::vector<double> warmUpLrs(ArmKind arm, WindowPolicy policy) {
  TinyLinear t(30);
  ExperimentConfig config;
  config.micro_batch = 4;
  config.accum = 3;
  config.samples = 60;
  config.window_policy = policy;
  config.optimizer.lr = 0.05;
  config.optimizer.warmup_samples = 100000;
  config.noise_stats = false;
  config.grad_check_every = 0;
  config.dtype = DType::kFloat64;
  auto model = makeModelFactory("logreg", {3}, 1, 11)->create();
  model->to(torch::kCPU, torch::kFloat64);
  ArmStepper stepper(arm, std::move(model), t.data, config, torch::kCPU, torch::kFloat64,
                     config.samples, std::make_unique<ArmMemory>(torch::kCPU));
  std::vector<double> lrs;
  while (stepper.samplesLeft() > 0) {
    const WindowOutcome out = stepper.step();
    if (out.end == WindowEnd::kStepped) lrs.push_back(out.record.lr);
  }
  return lrs;
}

/// The warm-up's LR after `position` samples: 0.05 · (position + 1) / 100000.
double warmUpLr(int64_t position) { return 0.05 * static_cast<double>(position + 1) / 100000.0; }

// A loop that calls scheduler.step() after every micro-batch, with a schedule written per
// update: each call moves it one update (m·K = 12 samples) on, whatever the micro-batch's
// size; a dropped window trains no micro-batch and moves it not at all. The short windows
// are in the middle of the run, where a count in samples goes wrong.
TEST(Pitfalls, SchedulePerMicroCountsMicroBatchesNotSamples) {
  // flush-exact: micro-batches per window 3, 3, 2 (4 + 2), 3, 3, 2; the scheduler stands at
  // (micro-batches before + this window's − 1) updates of 12 samples.
  std::vector<double> expected;
  for (int64_t updates : {2, 5, 7, 10, 13, 15}) expected.push_back(warmUpLr(12 * updates));
  const std::vector<double> exact =
      warmUpLrs(ArmKind::kPitfallSchedulePerMicro, WindowPolicy::kFlushExact);
  ASSERT_EQ(exact.size(), expected.size());
  for (size_t i = 0; i < exact.size(); ++i) EXPECT_NEAR(exact[i], expected[i], 1e-15) << i;
  // drop: the 6 samples at each epoch end are dropped; four windows of 3 micro-batches.
  const std::vector<double> dropped =
      warmUpLrs(ArmKind::kPitfallSchedulePerMicro, WindowPolicy::kDrop);
  ASSERT_EQ(dropped.size(), 4u);
  for (size_t i = 0; i < dropped.size(); ++i) {
    EXPECT_NEAR(dropped[i], warmUpLr(12 * (3 * static_cast<int64_t>(i) + 2)), 1e-15) << i;
  }
  // accum runs on samples seen, the dropped ones included: 0, 12, 30, 42.
  const std::vector<double> accum = warmUpLrs(ArmKind::kAccum, WindowPolicy::kDrop);
  ASSERT_EQ(accum.size(), 4u);
  const int64_t seen[] = {0, 12, 30, 42};
  for (size_t i = 0; i < accum.size(); ++i) EXPECT_NEAR(accum[i], warmUpLr(seen[i]), 1e-15) << i;
}

TEST(Pitfalls, ConfigsThatCannotShowTheMistakeAreRefused) {
  ExperimentConfig c;
  c.arms = {ArmKind::kAccum, ArmKind::kPitfallClipEach};
  EXPECT_THROW(validateConfig(c), InputError);  // no --clip-norm
  EXPECT_NE(pitfallUnmet(ArmKind::kPitfallClipEach, c).find("--clip-norm"), std::string::npos);
  EXPECT_EQ(pitfallUnmet(ArmKind::kPitfallSum, c), "");
  c.optimizer.clip_norm = 1.0;
  EXPECT_NO_THROW(validateConfig(c));
  c.arms = {ArmKind::kPitfallSchedulePerMicro};
  EXPECT_THROW(validateConfig(c), InputError);  // a constant LR has no schedule to run
  c.optimizer.schedule = LrSchedule::kStep;
  EXPECT_NO_THROW(validateConfig(c));
  c.workers = 2;
  c.arms = {ArmKind::kAccum, ArmKind::kPitfallSum};
  EXPECT_THROW(validateConfig(c), InputError);
  EXPECT_EQ(parseArmKind("pitfall:mean-of-means"), ArmKind::kPitfallMeanOfMeans);
  EXPECT_EQ(toString(ArmKind::kPitfallSchedulePerMicro), "pitfall:schedule-per-micro");
  EXPECT_EQ(pitfallArms().size(), 7u);
}

}  // namespace
}  // namespace accumlab
