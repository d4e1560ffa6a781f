// SPDX-License-Identifier: GPL-3.0-or-later
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

/// A probe of ratio `r` at m = 8 and `k`, with the log-symmetric 90% interval r·e^(±1.645·se).
ProbeRecord probeOf(double r, double se, int64_t k = 8) {
  ProbeRecord p;
  p.micro_batch = 8;
  p.accum = k;
  p.theory = static_cast<double>(k);
  p.ratio = r;
  p.ci_low = r * std::exp(-1.6448536269514722 * se);
  p.ci_high = r * std::exp(1.6448536269514722 * se);
  return p;
}

TEST(PooledProbe, IsTheWeightedGeometricMeanWithANarrowerInterval) {
  // Two probes of equal error: the pooled log-ratio is their mean, its error se/√2.
  const auto pooled = poolProbes({probeOf(4.0, 0.1), probeOf(16.0, 0.1)});
  ASSERT_TRUE(pooled.has_value());
  EXPECT_EQ(pooled->probes, 2);
  EXPECT_NEAR(pooled->ratio, 8.0, 1e-12);
  EXPECT_NEAR(std::log(pooled->ci_high / pooled->ratio), 1.6448536269514722 * 0.1 / std::sqrt(2.0),
              1e-12);
  EXPECT_EQ(pooled->theory, 8.0);
  // A probe with a wider interval counts less: weights 1/se².
  const auto weighted = poolProbes({probeOf(4.0, 0.1), probeOf(16.0, 0.2)});
  EXPECT_NEAR(std::log(weighted->ratio), (0.8 * std::log(4.0) + 0.2 * std::log(16.0)), 1e-12);
}

TEST(PooledProbe, WidensWhenTheProbesScatterMoreThanTheirIntervalsSay) {
  // Log-ratios ±1 apart with se 0.01: Cochran's Q is far above its n − 1 degrees of freedom.
  std::vector<ProbeRecord> probes;
  for (double r : {8.0 / std::exp(1.0), 8.0, 8.0 * std::exp(1.0)})
    probes.push_back(probeOf(r, 0.01));
  const auto pooled = poolProbes(probes);
  ASSERT_TRUE(pooled.has_value());
  EXPECT_NEAR(pooled->ratio, 8.0, 1e-9);
  // The scatter's own standard error of the mean: sqrt(Σ(x − x̄)²/(n − 1) / n) = sqrt(1/3).
  EXPECT_NEAR(std::log(pooled->ci_high / pooled->ratio), 1.6448536269514722 * std::sqrt(1.0 / 3.0),
              1e-9);
}

TEST(PooledProbe, PoolsOnlyTheLatestMAndK) {
  const auto pooled = poolProbes({probeOf(2.0, 0.1, 2), probeOf(8.0, 0.1), probeOf(8.0, 0.1)});
  ASSERT_TRUE(pooled.has_value());
  EXPECT_EQ(pooled->probes, 2);
  EXPECT_NEAR(pooled->ratio, 8.0, 1e-12);
  EXPECT_FALSE(poolProbes({}).has_value());
  ProbeRecord empty;  // no finite interval: nothing pooled
  EXPECT_TRUE(std::isnan(poolProbes({empty})->ratio));
}

TEST(PooledProbe, IntervalCoversTheCentreAsOftenAsItSays) {
  // 400 runs of 10 probes, each probe's log-ratio normal around log 8 with its own error:
  // the pooled 90% interval must cover 8 in 85–95% of them.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> z;
  std::uniform_real_distribution<double> se_of(0.03, 0.12);
  int covered = 0;
  constexpr int kRuns = 400;
  for (int run = 0; run < kRuns; ++run) {
    std::vector<ProbeRecord> probes;
    for (int i = 0; i < 10; ++i) {
      const double se = se_of(rng);
      probes.push_back(probeOf(8.0 * std::exp(se * z(rng)), se));
    }
    const auto pooled = poolProbes(probes);
    covered += pooled->ci_low <= 8.0 && 8.0 <= pooled->ci_high;
  }
  std::printf("pooled probes: the 90%% interval covers K in %d of %d runs\n", covered, kRuns);
  EXPECT_GE(covered, 340);
  EXPECT_LE(covered, 380);
}

}  // namespace
}  // namespace accumlab
