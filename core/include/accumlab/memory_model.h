#pragma once

#include <cstdint>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/records.h"

namespace accumlab {

/// Peak tensor memory of one update against its micro-batch m (DESIGN.md §3):
/// peak(m) ≈ fixed + per_sample·m, where `fixed` is the weights, gradients and optimizer
/// state and `per_sample` the inputs and activations one sample adds. Fitted from two probes.
struct MemoryModel {
  double fixed_bytes = kNaN;
  double per_sample_bytes = kNaN;
  int64_t probe_small = 0;  ///< the two micro-batches that were probed
  int64_t probe_large = 0;

  /// Whether the probes measured anything (not on a device without tensor accounting).
  bool valid() const;
  /// The predicted peak tensor bytes of an update whose micro-batches hold m samples.
  double predict(int64_t m) const {
    return fixed_bytes + per_sample_bytes * static_cast<double>(m);
  }
};

/// Measures `config`'s model on its data, optimizer, dtype and device: two updates (K = 1,
/// no noise statistics) with micro-batches of `small` samples, two with `large`, each pair
/// from fresh weights, and fits the line through their peaks. Loads the dataset and trains, so
/// call it on a worker thread, never on the GUI thread. Throws InputError for a bad config
/// (as Trainer::run does).
MemoryModel probeMemoryModel(const ExperimentConfig& config, int64_t small = 8, int64_t large = 32);

/// A micro-batch m and accumulation count K chosen to fit a memory budget.
struct BudgetFit {
  int64_t micro_batch = 0;
  int64_t accum = 0;
  double predicted_bytes = kNaN;  ///< the model's peak tensor bytes at micro_batch
  std::string reason;             ///< one sentence: the choice and why
};

/// The largest m ≤ B whose predicted peak fits `budget_bytes`, then K = ceil(B/m) and, for
/// that K, the smallest m that still covers B (m = ceil(B/K): less memory, m·K as near B as
/// whole micro-batches allow). Throws InputError when even m = 1 does not fit.
BudgetFit fitMemoryBudget(const MemoryModel& model, int64_t budget_bytes, int64_t effective_batch);

/// Parses a size such as "200MiB", "1.5GiB", "500MB", "64KiB" or "1048576" (bytes); throws
/// InputError naming the text when it is not one.
int64_t parseByteSize(const std::string& text);

/// Bytes for people: "18.3 MiB", or "70 KiB" below one MiB.
std::string formatMemory(double bytes);

}  // namespace accumlab
