// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace accumlab {

/// The true parameters of the `linreg` dataset: y = w·x + b + σ·ε, x ~ N(0, I), ε ~ N(0, 1).
struct LinregTruth {
  std::vector<double> w;
  double b = 0;
  double sigma = 0;
};

/// Population gradient statistics of the per-sample loss (w·x + b − y)² at given weights.
struct AnalyticNoise {
  double trace_sigma = 0;  ///< tr Σ of the per-sample gradient
  double g_sq = 0;         ///< |G|², the squared norm of the true gradient
};

/// Analytic trΣ and |G|² of `linreg` at weights (w, b): with δ = w − w*, δ_b = b − b*,
/// |G|² = 4(|δ|² + δ_b²) and trΣ = 4((d+2)|δ|² + d·δ_b² + (d+1)σ²).
AnalyticNoise linregNoise(const LinregTruth& truth, const std::vector<double>& w, double b);

/// Three interleaved 2-D spirals, 3 classes.
Dataset makeSpirals(int64_t samples, double val_fraction, uint64_t seed);
/// Gaussian blobs, 10 classes, samples of the given shape (e.g. {32} or {1, 28, 28}).
Dataset makeBlobs(int64_t samples, const std::vector<int64_t>& shape, double val_fraction,
                  uint64_t seed);
/// Linear regression with known noise in `dim` dimensions; `truth` receives the parameters.
Dataset makeLinreg(int64_t samples, int64_t dim, double val_fraction, uint64_t seed,
                   LinregTruth* truth = nullptr);

}  // namespace accumlab
