// SPDX-License-Identifier: GPL-3.0-or-later
// The sweep's fits (core/sweeps/sweep_fit.cpp) against numbers with known answers.
#include "accumlab/sweep_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

const std::vector<double> kBatches = {8, 16, 32, 64, 128, 256, 512, 1024};

/// S(B) = S_min (1 + B_crit/B).
std::vector<double> stepsCurve(double s_min, double b_crit) {
  std::vector<double> s;
  for (double b : kBatches) s.push_back(s_min * (1.0 + b_crit / b));
  return s;
}

TEST(StepsFit, RecoversSMinAndBCritFromExactPoints) {
  const StepsFit f = fitStepsToTarget(kBatches, stepsCurve(120.0, 96.0));
  EXPECT_NEAR(f.s_min, 120.0, 1e-9);
  EXPECT_NEAR(f.e_min, 120.0 * 96.0, 1e-6);
  EXPECT_NEAR(f.b_crit, 96.0, 1e-9);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_EQ(f.points, 8);
  EXPECT_NEAR(stepsAt(f, 96.0), 240.0, 1e-9) << "at B_crit it takes twice S_min";
}

TEST(StepsFit, WithinFivePercentUnderFivePercentMultiplicativeNoise) {
  // 200 noisy sweeps: the median fit is within 5% and most single fits are too.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.05);
  int within = 0;
  const int sweeps = 200;
  for (int r = 0; r < sweeps; ++r) {
    std::vector<double> s = stepsCurve(120.0, 96.0);
    for (double& v : s) v *= 1.0 + noise(rng);
    const StepsFit f = fitStepsToTarget(kBatches, s);
    if (std::abs(f.s_min / 120.0 - 1) < 0.05 && std::abs(f.b_crit / 96.0 - 1) < 0.05 * 2) ++within;
  }
  // One sweep of 8 points with 5% noise: S_min within 5% and B_crit within 10% in most.
  EXPECT_GE(within, sweeps * 3 / 4);
  std::vector<double> s = stepsCurve(120.0, 96.0);
  const double wiggle[] = {0.05, -0.05, 0.05, -0.05, 0.05, -0.05, 0.05, -0.05};
  for (size_t i = 0; i < s.size(); ++i) s[i] *= 1.0 + wiggle[i];
  const StepsFit f = fitStepsToTarget(kBatches, s);
  EXPECT_NEAR(f.s_min / 120.0, 1.0, 0.05);
  EXPECT_NEAR(f.b_crit / 96.0, 1.0, 0.05);
}

TEST(StepsFit, PerfectScalingHasNoCriticalBatchInRange) {
  // S = E_min / B: no floor, so S_min ≈ 0 and B_crit is beyond any batch tried (or NaN).
  std::vector<double> s;
  for (double b : kBatches) s.push_back(51200.0 / b);
  const StepsFit f = fitStepsToTarget(kBatches, s);
  EXPECT_NEAR(f.e_min, 51200.0, 1e-6);
  EXPECT_NEAR(f.s_min, 0.0, 1e-9);
  EXPECT_TRUE(std::isnan(f.b_crit) || f.b_crit > 1e6);
}

TEST(StepsFit, RefusesInOneSentence) {
  EXPECT_THROW(fitStepsToTarget({8, 16}, {100, 60}), InputError);
  EXPECT_THROW(fitStepsToTarget({8, 16, 32}, {100, 60}), InputError);
  EXPECT_THROW(fitStepsToTarget({8, 16, 32}, {100, 0, 30}), InputError);
  EXPECT_THROW(fitStepsToTarget({8, 8, 8}, {100, 90, 110}), InputError);
  try {
    fitStepsToTarget({8, 16}, {100, 60});
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "the steps-to-target fit needs at least 3 points, got 2");
  }
}

TEST(LogLogSlope, ExactPowerLaw) {
  std::vector<double> v;
  for (double b : kBatches) v.push_back(3.0 * std::pow(b, -1.0));
  const SlopeFit f = fitLogLogSlope(kBatches, v);
  EXPECT_NEAR(f.slope, -1.0, 1e-12);
  EXPECT_NEAR(f.intercept, std::log(3.0), 1e-12);
  EXPECT_NEAR(f.ci_low, -1.0, 1e-9);
  EXPECT_NEAR(f.ci_high, -1.0, 1e-9);
}

TEST(LogLogSlope, VarianceOfIidMeansFallsAsOneOverB) {
  // The variance of the mean of B i.i.d. values, each estimated from 200 means: slope −1,
  // and the 90% interval covers it.
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> sample(1.0);  // skewed, variance 1
  std::vector<double> var;
  for (double b : kBatches) {
    const int reps = 200;
    double sum = 0, sum_sq = 0;
    for (int r = 0; r < reps; ++r) {
      double mean = 0;
      for (int i = 0; i < static_cast<int>(b); ++i) mean += sample(rng);
      mean /= b;
      sum += mean;
      sum_sq += mean * mean;
    }
    var.push_back((sum_sq - sum * sum / reps) / (reps - 1));
  }
  const SlopeFit f = fitLogLogSlope(kBatches, var);
  EXPECT_GE(f.slope, -1.15);
  EXPECT_LE(f.slope, -0.85);
  EXPECT_LE(f.ci_low, -1.0);
  EXPECT_GE(f.ci_high, -1.0);
  EXPECT_LT(f.ci_low, f.slope);
  EXPECT_GT(f.ci_high, f.slope);
}

TEST(Crossing, InterpolatesBetweenTheRecordsAroundIt) {
  const std::vector<double> steps = {1, 2, 3, 4};
  const std::vector<double> samples = {64, 128, 192, 256};
  const std::vector<double> loss = {2.0, 1.0, 0.5, 0.4};
  const auto c = firstCrossingBelow(steps, samples, loss, 0.75);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->step, 2.5);
  EXPECT_DOUBLE_EQ(c->samples, 160.0);
  EXPECT_FALSE(firstCrossingBelow(steps, samples, loss, 0.1));
  const auto first = firstCrossingBelow(steps, samples, loss, 3.0);
  ASSERT_TRUE(first);
  EXPECT_DOUBLE_EQ(first->step, 1.0);
  const auto acc = firstCrossingAbove(steps, samples, {0.1, 0.5, kNaN, 0.9}, 0.7);
  ASSERT_TRUE(acc);
  EXPECT_DOUBLE_EQ(acc->step, 3.0);  // from step 2 (0.5) to step 4 (0.9), NaN skipped
}

}  // namespace
}  // namespace accumlab
