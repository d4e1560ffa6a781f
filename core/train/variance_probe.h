// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "accumlab/records.h"
#include "data/dataset.h"
#include "models/model.h"

namespace accumlab {

/// Training samples a probe runs forward once, for the per-sample losses it draws from: about
/// the forward cost of 64 micro-batches and windows at m = 8, K = 8, and enough samples
/// that the pool's excess kurtosis (which sets the interval) is well measured.
constexpr int64_t kProbePool = 4096;

/// Batches a batch-dependent (BatchNorm) model runs at most per probe: each is a forward of
/// its own, so R stays as small as before pools existed.
constexpr int64_t kBatchDependentRepeats = 64;

/// Bins of a probe's histogram of mean losses.
constexpr int kProbeHistogramBins = 40;

/// What one fixed-weight variance probe draws.
struct ProbeRequest {
  int64_t micro_batch = 8;    ///< m
  int64_t accum = 8;          ///< K
  int64_t repeats = 2048;     ///< R micro-batches and R windows
  int64_t pool = kProbePool;  ///< training samples run forward (at most the training set)
  uint64_t seed = 0;          ///< picks the rows
};

/// The clean batch-size experiment: at the model's current weights, with no update and no
/// gradients, the loss of R random micro-batches of m training samples and of R random
/// windows of m·K, every sample drawn independently and uniformly, so the true ratio of
/// their variances is exactly K. Returns the two variances, their ratio, its 90% interval and
/// the histogram of the two sets of mean losses. Text under --token-loss tokens draws each
/// batch's Σ token loss / Σ tokens (probeWeightedPool), whose theory is not exactly K.
///
/// A model that treats samples independently runs a pool of distinct random training samples
/// forward once (`pool`, chunked) and draws every micro-batch and window from the pool's
/// per-sample losses with replacement (probeLossPool): R costs index arithmetic only. A
/// BatchNorm model evaluates every micro-batch and window as a batch of its own, at most
/// kBatchDependentRepeats of each, gets its running statistics back afterwards, and is
/// marked batch_dependent. Leaves train mode on. Runs on the training thread; the caller
/// fills in arm, step, samples_seen and wall_ms. Throws std::invalid_argument for m, K < 1,
/// R < 2 or a pool < 2.
ProbeRecord probeVariance(Model& model, const Dataset& data, const ProbeRequest& request,
                          const torch::Device& device, torch::Dtype dtype);

/// The probe of a pool of per-sample losses: R micro-batches of m and R windows of m·K drawn
/// with replacement from `losses`, and the 90% F-interval of the ratio whose degrees of
/// freedom allow for the excess kurtosis γ₂ of the losses (a mean of n draws has γ₂/n). The
/// draws come from the pool, so the pool's own γ₂ is the exact one, and the ratio's centre
/// is K whatever the pool: the interval covers K as often as it says (tested with
/// heavy-tailed losses in tests/core/train/variance_probe_test.cpp). `normal_theory` drops
/// the kurtosis term (R − 1 degrees of freedom), for comparison only. Fills the sizes,
/// variances, ratio, interval, theory and histogram.
ProbeRecord probeLossPool(const std::vector<double>& losses, int64_t micro_batch, int64_t accum,
                          int64_t repeats, uint64_t seed, bool normal_theory = false);

/// The same for a pool whose batches are ratios: a micro-batch's loss is Σ sums / Σ weights
/// of its m draws (text under --token-loss tokens: each sequence's summed token loss over
/// its target tokens), weights empty meaning 1 each. The theory value is then
/// weightedProbeTheory, and γ₂ that of the residuals s − R·w.
ProbeRecord probeWeightedPool(const std::vector<double>& sums, const std::vector<double>& weights,
                              int64_t micro_batch, int64_t accum, int64_t repeats, uint64_t seed,
                              bool normal_theory = false);

/// The true ratio Var(micro-batch loss) / Var(window loss) for batches drawn with replacement
/// from a weighted pool (docs/sequences.md). With equal weights it is exactly K. Otherwise the
/// batch loss Σs/Σw is a ratio estimator whose variance over n draws is A/n + B/n² + O(1/n³),
/// with R = Σs/Σw, d = s − R·w, e = w − w̄ (pool moments):
///   A = E[d²]/w̄²,  B = −2·E[d²e]/w̄³ + (3·E[d²]·E[e²] + 5·E[de]²)/w̄⁴,
/// so the ratio is K·(1 + B/(A·m)) / (1 + B/(A·m·K)). NaN where the correction reaches half
/// the leading term (the expansion does not hold at so small an m).
double weightedProbeTheory(const std::vector<double>& sums, const std::vector<double>& weights,
                           int64_t micro_batch, int64_t accum);

/// Samples a probe runs forward: the pool (at most the training set), or R·m·(K+1) batch by
/// batch for a batch-dependent model.
int64_t probeForwardSamples(const ProbeRequest& request, bool batch_dependent, int64_t train_size);

/// Excess kurtosis of `values` (fourth central moment over the squared variance, minus 3);
/// NaN for fewer than four values or no spread.
double excessKurtosis(const std::vector<double>& values);

}  // namespace accumlab
