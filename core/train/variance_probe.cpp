// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/variance_probe.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "accumlab/variance_ratio.h"
#include "train/loss.h"

namespace accumlab {

namespace {

// Rows per forward pass when losses are per sample: large enough to amortise a call, small
// enough that a CNN's activations stay modest.
constexpr int64_t kChunk = 512;

std::vector<int64_t> drawRows(int64_t count, int64_t population, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> pick(0, population - 1);
  std::vector<int64_t> rows(static_cast<size_t>(count));
  for (int64_t& r : rows) r = pick(rng);
  return rows;
}

/// rows[begin, end) as an index tensor.
torch::Tensor rowSlice(const std::vector<int64_t>& rows, size_t begin, size_t end) {
  return torch::tensor(std::vector<int64_t>(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                                            rows.begin() + static_cast<std::ptrdiff_t>(end)),
                       torch::kLong);
}

/// Per-sample losses (float64) of `rows`, as the training loss defines them (train/loss.h).
torch::Tensor probeLosses(Model& model, const Dataset& data, const torch::Tensor& rows,
                          const torch::Device& device, torch::Dtype dtype) {
  torch::Tensor out = model.forward(data.trainInputs(rows, dtype, device));
  return sampleLosses(data, out, data.trainTargets(rows, dtype, device))
      .to(torch::kCPU, torch::kFloat64);
}

/// Mean loss of each consecutive group of `group` rows, every group a batch of its own
/// (BatchNorm: the batch statistics are the group's).
std::vector<double> groupMeansByBatch(Model& model, const Dataset& data,
                                      const std::vector<int64_t>& rows, int64_t group,
                                      const torch::Device& device, torch::Dtype dtype) {
  std::vector<double> means;
  for (size_t begin = 0; begin < rows.size(); begin += static_cast<size_t>(group)) {
    torch::Tensor idx = rowSlice(rows, begin, begin + static_cast<size_t>(group));
    means.push_back(probeLosses(model, data, idx, device, dtype).mean().item<double>());
  }
  return means;
}

/// Per-sample losses of all `rows`, computed kChunk at a time (the model treats samples
/// independently, so how they are batched does not change them).
std::vector<double> lossesBySample(Model& model, const Dataset& data,
                                   const std::vector<int64_t>& rows, const torch::Device& device,
                                   torch::Dtype dtype) {
  std::vector<double> losses;
  losses.reserve(rows.size());
  for (size_t begin = 0; begin < rows.size(); begin += kChunk) {
    const size_t end = std::min(rows.size(), begin + static_cast<size_t>(kChunk));
    torch::Tensor l =
        probeLosses(model, data, rowSlice(rows, begin, end), device, dtype).contiguous();
    const double* p = l.data_ptr<double>();
    losses.insert(losses.end(), p, p + l.numel());
  }
  return losses;
}

/// `count` distinct rows of [0, population), in random order (all of them when count ≥
/// population): a partial Fisher–Yates shuffle.
std::vector<int64_t> distinctRows(int64_t count, int64_t population, std::mt19937_64& rng) {
  std::vector<int64_t> all(static_cast<size_t>(population));
  for (int64_t i = 0; i < population; ++i) all[static_cast<size_t>(i)] = i;
  const int64_t n = std::min(count, population);
  for (int64_t i = 0; i < n; ++i) {
    std::uniform_int_distribution<int64_t> pick(i, population - 1);
    std::swap(all[static_cast<size_t>(i)], all[static_cast<size_t>(pick(rng))]);
  }
  all.resize(static_cast<size_t>(n));
  return all;
}

/// Means of `repeats` groups of `group` pool entries drawn with replacement: each group's
/// summed losses over its summed weights (weights empty: each entry weighs 1).
std::vector<double> resampledMeans(const std::vector<double>& losses,
                                   const std::vector<double>& weights, int64_t group,
                                   int64_t repeats, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, losses.size() - 1);
  std::vector<double> means(static_cast<size_t>(repeats));
  for (double& mean : means) {
    double sum = 0, weight = 0;
    for (int64_t i = 0; i < group; ++i) {
      const size_t at = pick(rng);
      sum += losses[at];
      weight += weights.empty() ? 1.0 : weights[at];
    }
    mean = sum / weight;
  }
  return means;
}

/// Σ values / n.
double meanOf(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

/// The residuals d_i = s_i − R·w_i of a weighted pool, R = Σs/Σw (s_i − mean for equal
/// weights): the ratio estimator's error is d̄/w̄ to first order.
std::vector<double> ratioResiduals(const std::vector<double>& sums,
                                   const std::vector<double>& weights) {
  std::vector<double> d(sums.size());
  if (weights.empty()) {
    const double mean = meanOf(sums);
    for (size_t i = 0; i < sums.size(); ++i) d[i] = sums[i] - mean;
    return d;
  }
  const double r = meanOf(sums) / meanOf(weights);
  for (size_t i = 0; i < sums.size(); ++i) d[i] = sums[i] - r * weights[i];
  return d;
}

/// The two sets of means in kProbeHistogramBins common bins spanning the micro-batch means'
/// central 99% (a heavy tail would otherwise squeeze the picture into a few bins; the few
/// means outside are left out).
ProbeHistogram histogramOf(const std::vector<double>& micro, const std::vector<double>& window) {
  ProbeHistogram h;
  if (micro.size() < 2) return h;
  std::vector<double> sorted = micro;
  std::sort(sorted.begin(), sorted.end());
  const auto at = [&](double q) {
    return sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))];
  };
  h.low = at(0.005);
  h.high = at(0.995);
  if (!(h.high > h.low)) return ProbeHistogram{};
  h.micro.assign(kProbeHistogramBins, 0);
  h.window.assign(kProbeHistogramBins, 0);
  const double width = (h.high - h.low) / kProbeHistogramBins;
  const auto count = [&](const std::vector<double>& values, std::vector<int64_t>& bins) {
    for (double v : values) {
      if (!(v >= h.low && v <= h.high)) continue;
      const int b = std::min(kProbeHistogramBins - 1, static_cast<int>((v - h.low) / width));
      ++bins[static_cast<size_t>(b)];
    }
  };
  count(micro, h.micro);
  count(window, h.window);
  return h;
}

double sampleVariance(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return ss / static_cast<double>(v.size() - 1);
}

}  // namespace

double excessKurtosis(const std::vector<double>& values) {
  const size_t n = values.size();
  if (n < 4) return kNaN;
  double mean = 0;
  for (double x : values) mean += x;
  mean /= static_cast<double>(n);
  double m2 = 0, m4 = 0;
  for (double x : values) {
    const double d2 = (x - mean) * (x - mean);
    m2 += d2;
    m4 += d2 * d2;
  }
  m2 /= static_cast<double>(n);
  m4 /= static_cast<double>(n);
  return m2 > 0 ? m4 / (m2 * m2) - 3.0 : kNaN;
}

double weightedProbeTheory(const std::vector<double>& sums, const std::vector<double>& weights,
                           int64_t micro_batch, int64_t accum) {
  const double k = static_cast<double>(accum), m = static_cast<double>(micro_batch);
  if (weights.empty() || sums.size() < 2) return k;
  const std::vector<double> d = ratioResiduals(sums, weights);
  const double mw = meanOf(weights);
  double dd = 0, de = 0, ee = 0, dde = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const double e = weights[i] - mw;
    dd += d[i] * d[i];
    de += d[i] * e;
    ee += e * e;
    dde += d[i] * d[i] * e;
  }
  const double n = static_cast<double>(d.size());
  dd /= n;
  de /= n;
  ee /= n;
  dde /= n;
  // Var(Σs/Σw over n draws) = A/n + B/n² + O(1/n³): the delta method taken one order further.
  const double a = dd / (mw * mw);
  const double b =
      -2.0 * dde / (mw * mw * mw) + (3.0 * dd * ee + 5.0 * de * de) / (mw * mw * mw * mw);
  if (!(a > 0)) return k;
  const double micro = 1.0 + b / (a * m);
  const double window = 1.0 + b / (a * m * k);
  // Where the correction is as large as the leading term the expansion says nothing.
  if (!(micro > 0.5 && window > 0.5)) return kNaN;
  return k * micro / window;
}

ProbeRecord probeLossPool(const std::vector<double>& losses, int64_t micro_batch, int64_t accum,
                          int64_t repeats, uint64_t seed, bool normal_theory) {
  return probeWeightedPool(losses, {}, micro_batch, accum, repeats, seed, normal_theory);
}

ProbeRecord probeWeightedPool(const std::vector<double>& sums, const std::vector<double>& weights,
                              int64_t micro_batch, int64_t accum, int64_t repeats, uint64_t seed,
                              bool normal_theory) {
  const int64_t m = micro_batch, k = accum, r = repeats;
  if (m < 1 || k < 1 || r < 2 || sums.size() < 2 ||
      (!weights.empty() && weights.size() != sums.size())) {
    throw std::invalid_argument(
        "variance probe needs m ≥ 1, K ≥ 1, at least 2 repeats, a pool of 2 and one weight per "
        "loss");
  }
  ProbeRecord rec;
  rec.micro_batch = m;
  rec.accum = k;
  rec.repeats = r;
  rec.pool = static_cast<int64_t>(sums.size());
  rec.theory = weightedProbeTheory(sums, weights, m, k);
  std::mt19937_64 rng(seed);
  const std::vector<double> micro = resampledMeans(sums, weights, m, r, rng);
  const std::vector<double> window = resampledMeans(sums, weights, m * k, r, rng);
  rec.var_micro = sampleVariance(micro);
  rec.var_window = sampleVariance(window);
  // The draws are independent draws from the pool, so a mean of n of them has excess
  // kurtosis γ₂/n with γ₂ the pool's own (population moments): no estimate from R means.
  // Weighted, the mean's error is d̄/w̄ to first order, so γ₂ is the residuals' d.
  const double g2 = normal_theory ? 0.0 : excessKurtosis(ratioResiduals(sums, weights));
  rec.kurtosis = g2;
  const RatioInterval ci =
      varianceRatioInterval(rec.var_micro, varianceDof(r, g2 / static_cast<double>(m)),
                            rec.var_window, varianceDof(r, g2 / static_cast<double>(m * k)));
  rec.ratio = ci.ratio;
  rec.ci_low = ci.low;
  rec.ci_high = ci.high;
  rec.histogram = histogramOf(micro, window);
  return rec;
}

int64_t probeForwardSamples(const ProbeRequest& request, bool batch_dependent, int64_t train_size) {
  if (batch_dependent) {
    return std::min(request.repeats, kBatchDependentRepeats) * request.micro_batch *
           (request.accum + 1);
  }
  return std::min(request.pool, train_size);
}

ProbeRecord probeVariance(Model& model, const Dataset& data, const ProbeRequest& request,
                          const torch::Device& device, torch::Dtype dtype) {
  const int64_t m = request.micro_batch, k = request.accum;
  if (m < 1 || k < 1 || request.repeats < 2 || request.pool < 2) {
    throw std::invalid_argument(
        "variance probe needs m ≥ 1, K ≥ 1, at least 2 repeats and a pool of 2");
  }
  std::mt19937_64 rng(request.seed);
  torch::NoGradGuard no_grad;
  if (!model.batchDependent()) {
    // One forward over the pool; every micro-batch and window is then drawn from its losses.
    std::vector<int64_t> rows = distinctRows(request.pool, data.trainSize(), rng);
    if (data.isText()) {
      // A chunk pads to its longest sequence: in order of length, little is padding. The
      // pool is drawn from uniformly, so its order changes no distribution.
      const torch::Tensor len = data.train_len.contiguous();
      const int64_t* l = len.data_ptr<int64_t>();
      std::stable_sort(rows.begin(), rows.end(), [l](int64_t a, int64_t b) { return l[a] < l[b]; });
    }
    const std::vector<double> losses = lossesBySample(model, data, rows, device, dtype);
    std::vector<double> weights;
    if (data.isText() && data.token_loss == TokenLoss::kTokens) {
      // Each sequence's loss is its tokens' sum: a batch's loss is Σs/Σtokens.
      const torch::Tensor w = data.trainRowWeights(torch::tensor(rows, torch::kLong)).contiguous();
      weights.assign(w.data_ptr<double>(), w.data_ptr<double>() + w.numel());
    }
    return probeWeightedPool(losses, weights, m, k, request.repeats, rng());
  }
  ProbeRecord rec;
  const int64_t r = std::min(request.repeats, kBatchDependentRepeats);
  rec.micro_batch = m;
  rec.accum = k;
  rec.repeats = r;
  rec.theory = static_cast<double>(k);
  rec.batch_dependent = true;
  const std::vector<int64_t> micro_rows = drawRows(r * m, data.trainSize(), rng);
  const std::vector<int64_t> window_rows = drawRows(r * m * k, data.trainSize(), rng);
  // Batch statistics differ per group, so every group is its own forward; the running
  // statistics that forward updates are put back afterwards.
  std::vector<torch::Tensor> saved;
  for (const torch::Tensor& b : model.buffers()) saved.push_back(b.clone());
  const std::vector<double> micro = groupMeansByBatch(model, data, micro_rows, m, device, dtype);
  const std::vector<double> window =
      groupMeansByBatch(model, data, window_rows, m * k, device, dtype);
  const std::vector<torch::Tensor> buffers = model.buffers();
  for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(saved[i]);
  rec.var_micro = sampleVariance(micro);
  rec.var_window = sampleVariance(window);
  // The group means' own kurtosis, from R values: all there is when batches are models.
  const RatioInterval ci =
      varianceRatioInterval(rec.var_micro, varianceDof(r, excessKurtosis(micro)), rec.var_window,
                            varianceDof(r, excessKurtosis(window)));
  rec.ratio = ci.ratio;
  rec.ci_low = ci.low;
  rec.ci_high = ci.high;
  rec.histogram = histogramOf(micro, window);
  return rec;
}

}  // namespace accumlab
