// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/records.h"

namespace accumlab {

/// Peak tensor memory of one update against its micro-batch m and accumulation count K
/// (docs/measurements.md): peak ≈ fixed + per_sample·m, plus accum_extra when K > 1. `fixed` is the
/// weights, gradients and optimizer state, `per_sample` the inputs and activations one sample
/// adds, and `accum_extra` the gradient a later micro-batch's backward makes before it is
/// added into the accumulated one (the first micro-batch's gradient, like a K = 1 update's,
/// becomes .grad itself). Fitted from three probes.
struct MemoryModel {
  double fixed_bytes = kNaN;
  double per_sample_bytes = kNaN;
  double accum_extra_bytes = kNaN;
  /// Whether a one-micro-batch arm accumulates too: with noise statistics on, a K = 1 arm
  /// splits a window in halves every few windows to measure noise (not a batch-dependent
  /// model), and those windows hold two half batches and what accumulating adds.
  bool k1_splits = false;
  int64_t probe_small = 0;  ///< the two micro-batches that were probed
  int64_t probe_large = 0;

  /// Whether the probes measured anything (not on a device without tensor accounting).
  bool valid() const;
  /// The predicted peak tensor bytes of an arm whose updates are k micro-batches of m samples.
  double predict(int64_t m, int64_t k = 1) const {
    const double line = fixed_bytes + per_sample_bytes * static_cast<double>(m);
    if (k > 1) return line + accum_extra_bytes;
    if (!k1_splits || m < 2) return line;
    const double halves =
        fixed_bytes + per_sample_bytes * static_cast<double>((m + 1) / 2) + accum_extra_bytes;
    return halves > line ? halves : line;
  }
};

/// A micro-batch m and accumulation count K chosen to fit a memory budget.
struct BudgetFit {
  int64_t micro_batch = 0;
  int64_t accum = 0;
  double predicted_bytes = kNaN;  ///< the model's peak tensor bytes at micro_batch × accum
  std::string reason;             ///< one sentence: the choice and why
};

/// The largest m ≤ B whose predicted peak (at K = ceil(B/m)) fits `budget_bytes`, then for
/// that K the smallest m that still covers B (m = ceil(B/K): less memory, m·K as near B as
/// whole micro-batches allow). Throws InputError when even m = 1 does not fit.
BudgetFit fitMemoryBudget(const MemoryModel& model, int64_t budget_bytes, int64_t effective_batch);

/// Parses a size such as "200MiB", "1.5GiB", "500MB", "64KiB" or "1048576" (bytes); throws
/// InputError naming the text when it is not one.
int64_t parseByteSize(const std::string& text);

}  // namespace accumlab
