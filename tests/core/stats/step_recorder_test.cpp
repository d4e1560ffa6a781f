// SPDX-License-Identifier: GPL-3.0-or-later
// StepRecorder: the derived statistics of a step from what the stepper measured.
#include "stats/step_recorder.h"

#include <gtest/gtest.h>

#include <cmath>

namespace accumlab {
namespace {

// E|g_B|² = |G|² + trΣ/B exactly, at B = 8 and B = 32, for trΣ = 4 and |G|² = 0.5.
constexpr double kTraceSigma = 4.0;
constexpr double kGSq = 0.5;

StepRecord measured(double loss, int64_t window_samples, bool with_noise) {
  StepRecord r;
  r.loss = loss;
  r.window_samples = window_samples;
  if (with_noise) {
    r.b_small = 8;
    r.b_big = 32;
    r.g_small_sq = kGSq + kTraceSigma / 8;
    r.g_big_sq = kGSq + kTraceSigma / 32;
  }
  return r;
}

TEST(StepRecorder, RecoversTraceSigmaAndGradientFromExactNorms) {
  StepRecorder recorder(0.9, 50);
  StepRecord r = measured(1.0, 32, true);
  recorder.complete(r);
  EXPECT_NEAR(r.trace_sigma_est, kTraceSigma, 1e-12);
  EXPECT_NEAR(r.g_sq_est, kGSq, 1e-12);
  EXPECT_NEAR(r.trace_sigma_ema, kTraceSigma, 1e-12);  // debiased: the first value itself
  EXPECT_NEAR(r.b_simple, kTraceSigma / kGSq, 1e-9);
  EXPECT_NEAR(r.noise_per_update, kTraceSigma / 32, 1e-12);
  EXPECT_NEAR(recorder.noisePerUpdate(64), kTraceSigma / 64, 1e-12);
  EXPECT_NEAR(recorder.bSimple(), kTraceSigma / kGSq, 1e-9);
}

TEST(StepRecorder, ShortWindowIsNoisierButTheSummaryUsesTheArmsBatch) {
  StepRecorder recorder(0.9, 50);
  for (int i = 0; i < 10; ++i) {
    StepRecord r = measured(1.0, 32, true);
    recorder.complete(r);
  }
  StepRecord last = measured(1.0, 10, false);  // a 10-sample window at the end
  recorder.complete(last);
  EXPECT_NEAR(last.noise_per_update, kTraceSigma / 10, 1e-12);
  EXPECT_NEAR(recorder.noisePerUpdate(32), kTraceSigma / 32, 1e-12);
}

TEST(StepRecorder, NoNoiseBeforeTheFirstMeasurement) {
  StepRecorder recorder(0.9, 50);
  StepRecord r = measured(2.0, 8, false);
  recorder.complete(r);
  EXPECT_TRUE(std::isnan(r.trace_sigma_est));
  EXPECT_TRUE(std::isnan(r.noise_per_update));
  EXPECT_TRUE(std::isnan(recorder.noisePerUpdate(8)));
  EXPECT_TRUE(std::isnan(recorder.bSimple()));
}

TEST(StepRecorder, RollingVarianceOfTheLastWLosses) {
  StepRecorder recorder(0.9, 3);
  double var = 0;
  for (double loss : {10.0, 1.0, 2.0, 3.0}) {
    StepRecord r = measured(loss, 8, false);
    recorder.complete(r);
    var = r.loss_var_rolling;
  }
  EXPECT_NEAR(var, 1.0, 1e-12);  // variance of {1, 2, 3}
  EXPECT_NEAR(recorder.lossMean(), 2.0, 1e-12);
  EXPECT_NEAR(recorder.lossVariance(), 1.0, 1e-12);
}

}  // namespace
}  // namespace accumlab
