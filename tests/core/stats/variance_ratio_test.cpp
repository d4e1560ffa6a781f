// The detrended loss variance and the F-interval of a variance ratio, against analytic truth.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "accumlab/smoothing.h"
#include "accumlab/variance_ratio.h"

namespace accumlab {
namespace {

constexpr int64_t kW = 50;

/// Mean over `windows` disjoint windows of W values of "trend + noise": the estimators are
/// noisy per window (±25% at W = 50), their means are not.
struct Means {
  double plain = 0;
  double detrended = 0;
};
Means meansOverWindows(double slope, double sigma, int windows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  Means m;
  int64_t t = 0;
  for (int w = 0; w < windows; ++w) {
    RollingVariance v(kW);
    for (int64_t i = 0; i < kW; ++i, ++t) v.add(5.0 - slope * static_cast<double>(t) + noise(rng));
    m.plain += v.variance() / windows;
    m.detrended += v.detrendedVariance() / windows;
  }
  return m;
}

TEST(DetrendedVariance, MeasuresTheNoiseUnderALinearTrend) {
  // Noise variance 1; a fall of 0.1 per update adds 0.1²·W(W+1)/12 ≈ 2.1 to the plain
  // variance of 50 updates and only 0.1²/2 = 0.005 to the detrended one.
  const Means m = meansOverWindows(0.1, 1.0, 400, 7);
  std::printf("noise variance 1 under a trend of 0.1 per update: detrended %.3f, plain %.3f\n",
              m.detrended, m.plain);
  EXPECT_NEAR(m.detrended, 1.0, 0.10);
  EXPECT_GT(m.plain, 2.5) << "the plain variance should count the trend";
}

TEST(DetrendedVariance, EqualsThePlainVarianceWithoutTrend) {
  const Means m = meansOverWindows(0.0, 2.0, 400, 8);
  EXPECT_NEAR(m.detrended, 4.0, 0.4);
  EXPECT_NEAR(m.plain, 4.0, 0.4);
}

TEST(DetrendedVariance, OfKnownValues) {
  RollingVariance v(4);
  for (double x : {1.0, 3.0, 2.0, 6.0}) v.add(x);
  // Differences 2, −1, 4: (4 + 1 + 16) / (2·3) = 3.5.
  EXPECT_DOUBLE_EQ(v.detrendedVariance(), 3.5);
  EXPECT_EQ(v.size(), 4);
  RollingVariance one(4);
  one.add(1.0);
  EXPECT_TRUE(std::isnan(one.detrendedVariance()));
}

TEST(DetrendedVariance, DegreesOfFreedomMatchItsSpread) {
  // Var(MSSD) = σ⁴(3n−4)/(n−1)² for normal values, i.e. 2σ⁴/ν with ν = 2(n−1)²/(3n−4).
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0.0, 1.0);
  constexpr int kReps = 20000;
  double sum = 0, sum2 = 0;
  for (int r = 0; r < kReps; ++r) {
    RollingVariance v(kW);
    for (int64_t i = 0; i < kW; ++i) v.add(noise(rng));
    const double d = v.detrendedVariance();
    sum += d;
    sum2 += d * d;
  }
  const double mean = sum / kReps;
  const double var = sum2 / kReps - mean * mean;
  EXPECT_NEAR(mean, 1.0, 0.01);
  EXPECT_NEAR(var, 2.0 / detrendedVarianceDof(kW), 0.05 * 2.0 / detrendedVarianceDof(kW));
  EXPECT_NEAR(detrendedVarianceDof(kW), 2.0 * 49 * 49 / 146.0, 1e-12);
}

TEST(VarianceRatio, IntervalFromTabulatedFQuantiles) {
  // F(0.95; 10, 20) = 2.3479 and F(0.05; 10, 20) = 1 / F(0.95; 20, 10) = 1 / 2.7740.
  const RatioInterval r = varianceRatioInterval(2.0, 10, 1.0, 20);
  EXPECT_DOUBLE_EQ(r.ratio, 2.0);
  EXPECT_NEAR(r.low, 2.0 / 2.3479, 1e-3);
  EXPECT_NEAR(r.high, 2.0 * 2.7740, 2e-3);
}

TEST(VarianceRatio, NotANumberForMeaninglessInputs) {
  EXPECT_TRUE(std::isnan(varianceRatioInterval(0.0, 10, 1.0, 10).ratio));
  EXPECT_TRUE(std::isnan(varianceRatioInterval(1.0, 10, kNaN, 10).low));
  EXPECT_TRUE(std::isnan(varianceRatioInterval(1.0, 0, 1.0, 10).high));
  EXPECT_TRUE(std::isnan(detrendedRatio(1.0, 1, 1.0, 50).ratio));
}

TEST(VarianceRatio, DegreesOfFreedomShrinkWithHeavyTails) {
  EXPECT_DOUBLE_EQ(varianceDof(64), 63.0);
  EXPECT_DOUBLE_EQ(varianceDof(64, -1.0), 63.0);
  EXPECT_LT(varianceDof(64, 2.0), 63.0);
  EXPECT_NEAR(varianceDof(64, 2.0), 2.0 / (2.0 / 63 + 2.0 / 64), 1e-12);
}

TEST(VarianceRatio, DetrendedIntervalCoversTheTrueRatio) {
  // Two arms' update losses with variances K·σ² and σ² (and different trends): the 90%
  // interval of the detrended ratio covers K about 90% of the time.
  constexpr int kReps = 2000;
  constexpr double kK = 8.0;
  std::mt19937_64 rng(12);
  std::normal_distribution<double> noise(0.0, 1.0);
  int covered = 0;
  for (int r = 0; r < kReps; ++r) {
    RollingVariance a(kW), b(kW);
    for (int64_t i = 0; i < kW; ++i) {
      a.add(3.0 - 0.01 * static_cast<double>(i) + std::sqrt(kK) * noise(rng));
      b.add(2.0 - 0.08 * static_cast<double>(i) + noise(rng));
    }
    const RatioInterval ci =
        detrendedRatio(a.detrendedVariance(), a.size(), b.detrendedVariance(), b.size());
    covered += ci.low <= kK && kK <= ci.high;
  }
  EXPECT_GE(covered, 0.87 * kReps);
  EXPECT_LE(covered, 0.93 * kReps);
}

}  // namespace
}  // namespace accumlab
