// SPDX-License-Identifier: GPL-3.0-or-later
// The fixed-weight variance probe: same weights, same data, only the batch size differs, so
// Var(loss of m) / Var(loss of m·K) is exactly K, and its 90% interval must say so.
#include "train/variance_probe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "accumlab/trainer.h"
#include "data/synthetic.h"
#include "models/model.h"
#include "recording_sink.h"
#include "store/summary_json.h"

namespace accumlab {
namespace {

using testing::RecordingSink;

constexpr int kRepetitions = 200;

/// How many of 200 seeded probes (default R and pool, m = 8, K = 8) have an interval that
/// covers K.
int coverage(Model& model, const Dataset& data) {
  int covered = 0;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    ProbeRequest req;
    req.micro_batch = 8;
    req.accum = 8;
    req.seed = 1000 + static_cast<uint64_t>(rep);
    const ProbeRecord p = probeVariance(model, data, req, torch::kCPU, torch::kFloat64);
    EXPECT_LT(p.ci_low, p.ratio);
    EXPECT_GT(p.ci_high, p.ratio);
    covered += p.ci_low <= 8.0 && 8.0 <= p.ci_high;
  }
  return covered;
}

std::unique_ptr<Model> modelFor(const std::string& spec, const Dataset& data) {
  auto model = makeModelFactory(spec, data.sample_shape, data.num_outputs, 3)->create();
  model->to(torch::kCPU, torch::kFloat64);
  return model;
}

TEST(VarianceProbe, IntervalCoversKOnClassification) {
  const Dataset data = makeSpirals(3000, 0.0, 5);
  auto model = modelFor("mlp:32", data);
  const int covered = coverage(*model, data);
  std::printf("spirals, mlp:32: the 90%% interval covers K in %d of %d probes\n", covered,
              kRepetitions);
  // 90% of 200 is 180 ± 4.2 (binomial): 85–95% is 170–190.
  EXPECT_GE(covered, 170);
  EXPECT_LE(covered, 190);
}

TEST(VarianceProbe, IntervalCoversKWithHeavyTailedLosses) {
  // Squared errors are χ²-like (excess kurtosis 12 per sample): a plain F-interval with
  // R − 1 degrees of freedom would undercover; the kurtosis-adjusted one must not.
  const Dataset data = makeLinreg(3000, 4, 0.0, 6);
  auto model = modelFor("logreg", data);
  const int covered = coverage(*model, data);
  std::printf("linreg, logreg: the 90%% interval covers K in %d of %d probes\n", covered,
              kRepetitions);
  EXPECT_GE(covered, 170);
  EXPECT_LE(covered, 190);
}

/// Per-sample cross-entropy losses of a confident classifier: most near 0, a few large
/// (misclassified samples), the heavy right tail of a trained model's losses.
std::vector<double> crossEntropyLikeLosses(size_t n, std::mt19937_64& rng) {
  std::bernoulli_distribution wrong(0.08);
  std::exponential_distribution<double> small(20.0), large(0.6);
  std::vector<double> losses(n);
  for (double& l : losses) l = wrong(rng) ? 0.7 + large(rng) : small(rng);
  return losses;
}

/// How many of 200 probes, each of a fresh pool of 4096 losses from `draw`, cover K = 8.
template <typename Draw>
int poolCoverage(Draw draw, bool normal_theory) {
  std::mt19937_64 rng(77);
  int covered = 0;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    const std::vector<double> pool = draw(rng);
    const ProbeRecord p = probeLossPool(pool, 8, 8, 2048, rng(), normal_theory);
    covered += p.ci_low <= 8.0 && 8.0 <= p.ci_high;
  }
  return covered;
}

TEST(VarianceProbe, PoolIntervalCoversKWithCrossEntropyTails) {
  // Excess kurtosis of these losses is about 10: the normal-theory F-interval (R − 1
  // degrees of freedom) is too narrow for the micro-batch means; the kurtosis-corrected one,
  // with the pool's own kurtosis (exact for draws from the pool), covers as it says.
  const auto draw = [](std::mt19937_64& rng) { return crossEntropyLikeLosses(kProbePool, rng); };
  const int corrected = poolCoverage(draw, false);
  const int normal = poolCoverage(draw, true);
  std::printf(
      "cross-entropy-like pools: kurtosis-corrected F covers K in %d of %d probes, "
      "normal-theory F in %d\n",
      corrected, kRepetitions, normal);
  EXPECT_GE(corrected, 170);
  EXPECT_LE(corrected, 190);
  EXPECT_LT(normal, corrected);
}

TEST(VarianceProbe, PoolIntervalCoversKWithLogNormalLosses) {
  // Log-normal (σ = 1) losses: excess kurtosis about 110 in the population, so every pool
  // has its own; the interval follows the pool it draws from.
  const auto draw = [](std::mt19937_64& rng) {
    std::lognormal_distribution<double> d(0.0, 1.0);
    std::vector<double> losses(kProbePool);
    for (double& l : losses) l = d(rng);
    return losses;
  };
  const int covered = poolCoverage(draw, false);
  std::printf("log-normal pools: the 90%% interval covers K in %d of %d probes\n", covered,
              kRepetitions);
  EXPECT_GE(covered, 170);
  EXPECT_LE(covered, 190);
}

/// A text-like pool (--token-loss tokens): lengths log-normal around 97 bytes with spread
/// `sigma`, cut to 1..256 (the fortunes' shape at sigma 0.8), each sequence's summed token
/// loss its tokens times a mean of its own near 2.5, plus per-token noise.
struct WeightedPool {
  std::vector<double> sums, weights;
};

WeightedPool textLikePool(std::mt19937_64& rng, double sigma) {
  std::lognormal_distribution<double> length(std::log(97.0), sigma);
  std::gamma_distribution<double> per_token(4.0, 2.5 / 4.0);
  std::normal_distribution<double> noise(0.0, 1.0);
  WeightedPool pool;
  for (int64_t i = 0; i < kProbePool; ++i) {
    const double t = std::clamp(std::round(length(rng)), 1.0, 256.0);
    pool.weights.push_back(t);
    pool.sums.push_back(t * per_token(rng) + std::sqrt(t) * noise(rng));
  }
  return pool;
}

/// Var(micro-batch loss) / Var(window loss) of batches drawn from `pool`, from 400,000
/// micro-batches and 100,000 windows (the ratio's relative error is about 0.5%).
double manyDrawsRatio(const WeightedPool& pool, int64_t m, int64_t k, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, pool.sums.size() - 1);
  const auto variance = [&](int64_t n, int64_t draws) {
    double sum = 0, sum_sq = 0;
    for (int64_t d = 0; d < draws; ++d) {
      double s = 0, w = 0;
      for (int64_t i = 0; i < n; ++i) {
        const size_t at = pick(rng);
        s += pool.sums[at];
        w += pool.weights[at];
      }
      sum += s / w;
      sum_sq += (s / w) * (s / w);
    }
    const double mean = sum / static_cast<double>(draws);
    return (sum_sq / static_cast<double>(draws) - mean * mean);
  };
  return variance(m, 400000) / variance(m * k, 100000);
}

TEST(VarianceProbe, WeightedTheoryIsExactlyKForEqualWeights) {
  std::mt19937_64 rng(5);
  const std::vector<double> losses = crossEntropyLikeLosses(kProbePool, rng);
  std::vector<double> sums, weights(losses.size(), 37.0);
  for (double l : losses) sums.push_back(37.0 * l);
  EXPECT_EQ(weightedProbeTheory(sums, weights, 8, 8), 8.0);
  EXPECT_EQ(weightedProbeTheory(sums, {}, 4, 2), 2.0);
  // The same draws as the unweighted probe: the same ratio and interval.
  const ProbeRecord plain = probeLossPool(losses, 8, 8, 2048, 9);
  const ProbeRecord weighted = probeWeightedPool(sums, weights, 8, 8, 2048, 9);
  EXPECT_NEAR(weighted.ratio, plain.ratio, 1e-12 * plain.ratio);
  EXPECT_NEAR(weighted.ci_low, plain.ci_low, 1e-9 * plain.ci_low);
  EXPECT_NEAR(weighted.ci_high, plain.ci_high, 1e-9 * plain.ci_high);
  EXPECT_THROW(probeWeightedPool(sums, {1.0, 2.0}, 8, 8, 2048, 9), std::invalid_argument);
}

TEST(VarianceProbe, WeightedTheoryMatchesManyDrawsWhereLengthsVary) {
  // Σs/Σw is a ratio estimator: its variance is not exactly 1/n, so the ratio is not K. For
  // spreads like the fortunes' (σ about 0.9) the second-order theory is nearer the truth
  // (many draws) than K; for an extreme spread (σ 1.5, lengths piled up at 1 and 256) the
  // expansion overshoots and K is nearer, both within 2.5%.
  struct Case {
    double sigma;
    int64_t m, k;
    double tolerance;  // relative, theory against many draws
    bool nearer_than_k;
  };
  for (const Case c :
       {Case{0.8, 8, 8, 0.02, true}, Case{0.8, 4, 8, 0.04, true}, Case{1.0, 8, 8, 0.02, true},
        Case{1.5, 8, 8, 0.025, false}, Case{1.5, 16, 4, 0.01, false}}) {
    std::mt19937_64 rng(11);
    const WeightedPool pool = textLikePool(rng, c.sigma);
    const double theory = weightedProbeTheory(pool.sums, pool.weights, c.m, c.k);
    const double truth = manyDrawsRatio(pool, c.m, c.k, rng);
    const double k = static_cast<double>(c.k);
    std::printf("lengths σ %.1f, m %lld, K %lld: many draws %.3f, theory %.3f, K %g\n", c.sigma,
                static_cast<long long>(c.m), static_cast<long long>(c.k), truth, theory, k);
    EXPECT_NEAR(theory, truth, c.tolerance * truth);
    if (c.nearer_than_k) {
      EXPECT_LT(std::abs(theory - truth), std::abs(k - truth));
    }
  }
}

TEST(VarianceProbe, WeightedIntervalCoversTheTheory) {
  std::mt19937_64 rng(78);
  int covered = 0, covered_k = 0;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    const WeightedPool pool = textLikePool(rng, 0.8);
    const ProbeRecord p = probeWeightedPool(pool.sums, pool.weights, 8, 8, 2048, rng());
    covered += p.ci_low <= p.theory && p.theory <= p.ci_high;
    covered_k += p.ci_low <= 8.0 && 8.0 <= p.ci_high;
  }
  std::printf("text-like pools: the 90%% interval covers the theory in %d of %d probes, K in %d\n",
              covered, kRepetitions, covered_k);
  EXPECT_GE(covered, 170);
  EXPECT_LE(covered, 190);
}

TEST(VarianceProbe, PoolProbeIsTightAndHasAHistogram) {
  std::mt19937_64 rng(5);
  const ProbeRecord p = probeLossPool(crossEntropyLikeLosses(kProbePool, rng), 8, 8, 2048, 3);
  EXPECT_EQ(p.pool, kProbePool);
  EXPECT_EQ(p.repeats, 2048);
  // One probe of R = 2048 is within about ±12% of K (90%), where R = 64 spanned a factor 3.
  EXPECT_GT(p.ci_low, 8.0 * 0.8);
  EXPECT_LT(p.ci_high, 8.0 * 1.25);
  ASSERT_FALSE(p.histogram.empty());
  ASSERT_EQ(p.histogram.micro.size(), static_cast<size_t>(kProbeHistogramBins));
  int64_t micro = 0, window = 0;
  for (size_t b = 0; b < p.histogram.micro.size(); ++b) {
    micro += p.histogram.micro[b];
    window += p.histogram.window[b];
  }
  // The bins span the micro-batch means' central 99%; windows are narrower, so all fit.
  EXPECT_GE(micro, 2048 * 98 / 100);
  EXPECT_LE(micro, 2048);
  EXPECT_GE(window, 2048 * 99 / 100);
}

TEST(VarianceProbe, IsReproducibleAndChangesNothing) {
  const Dataset data = makeSpirals(1000, 0.0, 5);
  auto model = modelFor("mlp:16", data);
  const torch::Tensor before = model->parameters().front().clone();
  ProbeRequest req;
  req.seed = 9;
  const ProbeRecord a = probeVariance(*model, data, req, torch::kCPU, torch::kFloat64);
  const ProbeRecord b = probeVariance(*model, data, req, torch::kCPU, torch::kFloat64);
  EXPECT_EQ(a.ratio, b.ratio);
  EXPECT_EQ(a.ci_low, b.ci_low);
  EXPECT_EQ(a.theory, 8.0);
  EXPECT_EQ(a.repeats, 2048);
  EXPECT_EQ(a.pool, data.trainSize());  // a training set smaller than kProbePool: all of it
  EXPECT_FALSE(a.batch_dependent);
  EXPECT_TRUE(torch::equal(before, model->parameters().front()));
  req.seed = 10;
  EXPECT_NE(probeVariance(*model, data, req, torch::kCPU, torch::kFloat64).ratio, a.ratio);
}

TEST(VarianceProbe, BatchNormModelKeepsItsRunningStatistics) {
  const Dataset data = makeBlobs(600, {1, 28, 28}, 0.0, 5);
  auto model = modelFor("cnn_bn", data);
  std::vector<torch::Tensor> before;
  for (const torch::Tensor& b : model->buffers()) before.push_back(b.clone());
  ProbeRequest req;
  req.micro_batch = 4;
  req.accum = 4;
  req.repeats = 8;
  const ProbeRecord p = probeVariance(*model, data, req, torch::kCPU, torch::kFloat64);
  EXPECT_TRUE(p.batch_dependent);
  EXPECT_EQ(p.pool, 0);
  EXPECT_EQ(p.repeats, 8);
  EXPECT_TRUE(std::isfinite(p.ratio));
  const auto after = model->buffers();
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_TRUE(torch::equal(before[i], after[i])) << i;
}

TEST(VarianceProbe, RefusesMeaninglessRequests) {
  const Dataset data = makeSpirals(100, 0.0, 5);
  auto model = modelFor("mlp:16", data);
  ProbeRequest req;
  req.repeats = 1;
  EXPECT_THROW(probeVariance(*model, data, req, torch::kCPU, torch::kFloat64),
               std::invalid_argument);
  req.repeats = 64;
  req.pool = 1;
  EXPECT_THROW(probeVariance(*model, data, req, torch::kCPU, torch::kFloat64),
               std::invalid_argument);
}

TEST(VarianceProbe, ExcessKurtosisOfKnownValues) {
  // Two-point values ±1: m4 / m2² = 1, so the excess kurtosis is −2.
  EXPECT_NEAR(excessKurtosis({1, -1, 1, -1}), -2.0, 1e-12);
  EXPECT_TRUE(std::isnan(excessKurtosis({1, 2, 3})));
}

ExperimentConfig probedRun() {
  ExperimentConfig c;
  c.data = "spirals";
  c.synthetic_samples = 2000;
  c.model = "mlp:16";
  c.micro_batch = 4;
  c.accum = 4;
  // A probe runs its pool (the whole training set here) forward, so the next waits twice
  // that many training samples: evaluations 4000 apart are far enough.
  c.samples = 16000;
  c.eval_every = 4000;
  c.probe_repeats = 256;
  c.probe_every = 0;  // at each evaluation
  c.grad_check_every = 0;
  c.device = "cpu";
  return c;
}

TEST(VarianceProbe, TrainerProbesAccumAtEachEvaluation) {
  RecordingSink sink;
  const RunSummary s = Trainer(probedRun()).run(sink);
  ASSERT_EQ(sink.probes.size(), 4u);
  for (size_t i = 0; i < sink.probes.size(); ++i) {
    const ProbeRecord& p = sink.probes[i];
    EXPECT_EQ(p.arm, ArmKind::kAccum);
    EXPECT_EQ(p.samples_seen, 4000 * static_cast<int64_t>(i + 1));
    EXPECT_EQ(p.step, p.samples_seen / 16);
    EXPECT_EQ(p.micro_batch, 4);
    EXPECT_EQ(p.accum, 4);
    EXPECT_EQ(p.repeats, 256);
    EXPECT_EQ(p.pool, s.info.train_samples);
    EXPECT_TRUE(std::isfinite(p.ratio) && p.ci_low < p.ratio && p.ratio < p.ci_high);
  }
  ASSERT_TRUE(s.variance_probe.has_value());
  EXPECT_EQ(s.variance_probes, 4);
  EXPECT_EQ(s.variance_probe->samples_seen, 16000);
  ASSERT_TRUE(s.variance_probe_pooled.has_value());
  EXPECT_EQ(s.variance_probe_pooled->probes, 4);
  // Four probes pooled: about half as wide (in the log) as one.
  const double pooled_width =
      std::log(s.variance_probe_pooled->ci_high / s.variance_probe_pooled->ci_low);
  const double latest_width = std::log(s.variance_probe->ci_high / s.variance_probe->ci_low);
  EXPECT_LT(pooled_width, 0.7 * latest_width);

  // The headline is the pooled estimate; the latest probe is under "latest".
  const nlohmann::json j = nlohmann::json::parse(summaryToJson(s));
  EXPECT_EQ(j["variance_probe"]["probes"], 4);
  EXPECT_EQ(j["variance_probe"]["pooled"], 4);
  EXPECT_DOUBLE_EQ(j["variance_probe"]["ratio"].get<double>(), s.variance_probe_pooled->ratio);
  EXPECT_DOUBLE_EQ(j["variance_probe"]["ci_low"].get<double>(), s.variance_probe_pooled->ci_low);
  EXPECT_EQ(j["variance_probe"]["theory"], 4.0);
  EXPECT_DOUBLE_EQ(j["variance_probe"]["latest"]["ratio"].get<double>(), s.variance_probe->ratio);
  EXPECT_EQ(j["variance_probe"]["latest"]["samples_seen"], 16000);
  EXPECT_EQ(j["variance_probe"]["latest"]["histogram"]["micro"].size(),
            static_cast<size_t>(kProbeHistogramBins));
  const ArmSummary& no_accum = testing::armOf(s, ArmKind::kNoAccum);
  const ArmSummary& accum = testing::armOf(s, ArmKind::kAccum);
  EXPECT_DOUBLE_EQ(j["variance_ratio"]["ratio"].get<double>(),
                   no_accum.loss_variance_detrended / accum.loss_variance_detrended);
  EXPECT_EQ(j["variance_ratio"]["updates"], 50);
  // The arms' own ratio is not presented as a test of K: no theory beside it.
  EXPECT_FALSE(j["variance_ratio"].contains("theory"));
  EXPECT_EQ(j["variance_ratio"]["batch_ratio"], 4);
  EXPECT_EQ(j["variance_ratio"]["tests_k"], false);
  EXPECT_LT(j["variance_ratio"]["ci_low"].get<double>(),
            j["variance_ratio"]["ci_high"].get<double>());
  EXPECT_TRUE(j["arms"]["accum"]["loss_variance_detrended"].is_number());
  EXPECT_EQ(j["arms"]["accum"]["loss_variance_count"], 50);
}

TEST(VarianceProbe, ProbingChangesNoTrainingNumber) {
  ExperimentConfig c = probedRun();
  RecordingSink with, without;
  Trainer(c).run(with);
  c.probe_repeats = 0;
  const RunSummary s = Trainer(c).run(without);
  EXPECT_TRUE(without.probes.empty());
  EXPECT_FALSE(s.variance_probe.has_value());
  ASSERT_EQ(with.steps.size(), without.steps.size());
  for (size_t i = 0; i < with.steps.size(); ++i) {
    ASSERT_EQ(with.steps[i].loss, without.steps[i].loss) << i;
  }
}

TEST(VarianceProbe, ProbeEverySetsItsOwnPeriod) {
  ExperimentConfig c = probedRun();
  c.probe_every = 8000;
  RecordingSink sink;
  Trainer(c).run(sink);
  ASSERT_EQ(sink.probes.size(), 2u);
  EXPECT_EQ(sink.probes[0].samples_seen, 8000);
}

TEST(VarianceProbe, ThePoolsForwardCostSpacesTheProbesOut) {
  // A probe runs its pool (the training set, about 1800 samples) forward, so the next one
  // waits at least twice that many training samples instead of the 800 asked for.
  ExperimentConfig c = probedRun();
  c.accum = 32;
  c.samples = 12800;
  c.probe_every = 800;
  c.arms = {ArmKind::kAccum};
  RecordingSink sink;
  const RunSummary s = Trainer(c).run(sink);
  ASSERT_GE(sink.probes.size(), 3u);
  ASSERT_LE(sink.probes.size(), 4u);
  for (size_t i = 1; i < sink.probes.size(); ++i) {
    EXPECT_GE(sink.probes[i].samples_seen - sink.probes[i - 1].samples_seen,
              2 * s.info.train_samples - 128);
  }
}

}  // namespace
}  // namespace accumlab
