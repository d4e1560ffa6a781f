// SPDX-License-Identifier: GPL-3.0-or-later
// The McCandlish estimators against analytic truth.
#include "stats/noise_estimator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "accumlab/trainer.h"
#include "data/dataset_factory.h"
#include "models/model.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

// A linreg experiment at lr = 0 in float64: the weights stay at their initial values.
ExperimentConfig linregConfig(int64_t m, int64_t k, std::vector<ArmKind> arms, int64_t samples) {
  ExperimentConfig c;
  c.data = "linreg";
  c.synthetic_samples = 40000;
  c.model = "logreg";
  c.micro_batch = m;
  c.accum = k;
  c.arms = std::move(arms);
  c.optimizer.lr = 0.0;
  c.dtype = DType::kFloat64;
  c.samples = samples;
  c.eval_every = samples;
  c.device = "cpu";
  return c;
}

// linreg's trΣ and |G|² at the model's initial weights (the same seed gives the same weights).
AnalyticNoise analyticAtInit(const ExperimentConfig& c) {
  LinregTruth truth;
  loadDataset(c, &truth);
  auto model = makeModelFactory(c.model, {10}, 1, c.seed)->create();
  model->to(torch::kCPU, torch::kFloat64);
  auto params = model->parameters();
  torch::Tensor w = params[0].reshape({-1}).contiguous();
  return linregNoise(truth,
                     std::vector<double>(w.data_ptr<double>(), w.data_ptr<double>() + w.numel()),
                     params[1].item<double>());
}

TEST(NoiseEstimator, RecoversTruthFromExpectedNorms) {
  // E|g_B|² = |G|² + trΣ/B exactly, so the estimator must return the inputs.
  const double g_sq = 3.0, trace = 40.0;
  const NoiseSample s = estimateNoise(8, g_sq + trace / 8, 64, g_sq + trace / 64);
  EXPECT_NEAR(s.g_sq, g_sq, 1e-12);
  EXPECT_NEAR(s.trace_sigma, trace, 1e-12);
}

TEST(NoiseTracker, BSimpleIsRatioOfSmoothedEstimates) {
  NoiseTracker t(0.9);
  t.add({100.0, 4.0});
  t.add({300.0, 6.0});
  // Debiased EMA with s = 0.9 over (100, 300): (0.09·100 + 0.1·300)/(1 − 0.81).
  const double trace = (0.9 * 0.1 * 100 + 0.1 * 300) / (1 - 0.81);
  const double g = (0.9 * 0.1 * 4 + 0.1 * 6) / (1 - 0.81);
  EXPECT_NEAR(t.traceSigma(), trace, 1e-9);
  EXPECT_NEAR(t.bSimple(), trace / g, 1e-9);
  EXPECT_NEAR(t.noisePerUpdate(64), trace / 64, 1e-9);
}

TEST(NoiseEstimator, LinregMeansMatchAnalyticValues) {
  // The mean of many per-window estimates must be within 10% of the closed form.
  const ExperimentConfig c = linregConfig(16, 8, {ArmKind::kAccum}, 800 * 128);
  const AnalyticNoise expected = analyticAtInit(c);
  Trainer trainer(c);
  testing::RecordingSink sink;
  trainer.run(sink);
  const auto steps = sink.of(ArmKind::kAccum);
  ASSERT_EQ(steps.size(), 800u);
  double trace = 0, g_sq = 0;
  for (const auto& s : steps) {
    trace += s.trace_sigma_est;
    g_sq += s.g_sq_est;
  }
  trace /= static_cast<double>(steps.size());
  g_sq /= static_cast<double>(steps.size());
  EXPECT_NEAR(trace, expected.trace_sigma, 0.10 * expected.trace_sigma);
  EXPECT_NEAR(g_sq, expected.g_sq, 0.10 * expected.g_sq);
  // The trainer's B_simple is the ratio of the smoothed estimates.
  EXPECT_NEAR(steps.back().b_simple, steps.back().trace_sigma_ema / steps.back().g_sq_ema, 1e-9);
}

TEST(NoiseEstimator, SingleMicroBatchArmsProbeWithHalves) {
  // K = 1 arms cannot compare two batch sizes within a window; every few windows they split
  // one in halves. Those estimates must match the closed form too.
  const ExperimentConfig c = linregConfig(32, 4, {ArmKind::kNoAccum, ArmKind::kBigBatch}, 120000);
  const AnalyticNoise expected = analyticAtInit(c);
  Trainer trainer(c);
  testing::RecordingSink sink;
  trainer.run(sink);
  double trace = 0;
  int n = 0;
  for (const auto& s : sink.of(ArmKind::kNoAccum)) {
    if (std::isnan(s.trace_sigma_est)) continue;
    EXPECT_DOUBLE_EQ(s.b_small, 16.0);
    trace += s.trace_sigma_est;
    ++n;
  }
  ASSERT_GT(n, 300);
  EXPECT_NEAR(trace / n, expected.trace_sigma, 0.10 * expected.trace_sigma);
}

}  // namespace
}  // namespace accumlab
