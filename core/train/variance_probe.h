#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "accumlab/records.h"
#include "data/dataset.h"
#include "models/model.h"

namespace accumlab {

/// What one fixed-weight variance probe draws.
struct ProbeRequest {
  int64_t micro_batch = 8;  ///< m
  int64_t accum = 8;        ///< K
  int64_t repeats = 64;     ///< R micro-batches and R windows
  uint64_t seed = 0;        ///< picks the rows
};

/// The clean batch-size experiment: at the model's current weights, with no update and no
/// gradients, the loss of R random micro-batches of m training samples and of R random
/// windows of m·K, every row drawn independently and uniformly with replacement, so the
/// true ratio of their variances is exactly K. Returns the two variances, their ratio and
/// its 90% F-interval, whose degrees of freedom allow for the excess kurtosis of the
/// per-sample losses (skewed losses make a variance of R values less certain than R − 1
/// degrees of freedom say). A BatchNorm model evaluates every micro-batch and window as a
/// batch of its own and gets its running statistics back afterwards; the result is marked
/// batch_dependent. Leaves train mode on. Runs on the training thread; the caller fills in
/// arm, step, samples_seen and wall_ms. Throws std::invalid_argument for m, K < 1 or R < 2.
ProbeRecord probeVariance(Model& model, const Dataset& data, const ProbeRequest& request,
                          const torch::Device& device, torch::Dtype dtype);

/// Excess kurtosis of `values` (fourth central moment over the squared variance, minus 3);
/// NaN for fewer than four values or no spread.
double excessKurtosis(const std::vector<double>& values);

}  // namespace accumlab
