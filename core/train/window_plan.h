// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "accumlab/experiment_config.h"
#include "data/sample_stream.h"

namespace accumlab {

/// The loss terms of some train rows (Dataset::trainWeight): for text under --token-loss
/// tokens, their target tokens. Empty: one per row.
using RowWeight = std::function<double(const torch::Tensor& rows)>;

/// The micro-batches of one window and how each micro-batch's summed loss is scaled.
struct WindowPlan {
  std::vector<torch::Tensor> micro_batches;  ///< row indices into the train split
  std::vector<double> loss_scales;           ///< multiplies each micro-batch's summed loss
  /// Loss terms of each micro-batch (its rows, or a text batch's target tokens), counted
  /// before the window's first backward: the exact scale is 1 / the window's weight.
  std::vector<double> weights;
  double weight = 0;     ///< loss terms of the whole window
  RowWeight weigh;       ///< how weights count; empty: rows
  int64_t samples = 0;   ///< samples trained in this window
  int64_t consumed = 0;  ///< samples taken from the stream (incl. dropped)
  bool partial = false;  ///< fewer than m·K samples
  bool dropped = false;  ///< a partial window discarded by `drop`
  /// True when the scaled gradient sum is the sample-weighted mean gradient (false for a
  /// short window under `flush-divide-by-K` and for a pitfall arm's window).
  bool exact_mean = true;
  /// Pitfall no-zero: the window adds to .grad as the previous window left it.
  bool keep_grads = false;
  /// Pitfall clip-each: each micro-batch's mean gradient is clipped to this norm (PyTorch's
  /// rule) before it is added; 0: off.
  double clip_each = 0;
  /// One worker's share of a data-parallel window (shardOf): micro_batches are this worker's,
  /// samples, consumed and loss_scales are the whole window's.
  bool shard = false;
  /// A shard: the micro-batches of the whole window (of every worker).
  size_t window_batches = 0;
  /// For each entry of micro_batches, the planned micro-batch it is a piece of, when
  /// splitPieces() cut the plan after an out-of-memory; empty when each is its own.
  std::vector<size_t> batch_of;

  /// The planned micro-batches: pieces cut from one count once.
  size_t batches() const { return batch_of.empty() ? micro_batches.size() : batch_of.back() + 1; }
  /// The loss terms of `rows`.
  double weightOf(const torch::Tensor& rows) const {
    return weigh ? weigh(rows) : static_cast<double>(rows.size(0));
  }
};

/// Plans the next window of an arm with micro-batch `m` and `k` micro-batches per window.
/// `budget_left` caps the samples taken. Window semantics of docs/accumulation.md:
/// `stream` windows cross epoch ends; the other policies end a window at the epoch end and
/// then update exactly (`flush-exact`), under-scaled by mean/K (`flush-divide-by-K`) or not
/// at all (`drop`). A window cut short by the budget follows the same policy, except under
/// `stream`, where it is normalised exactly. `weigh` counts loss terms (text: tokens); the
/// exact scale divides each summed loss by the window's, and every full window takes it
/// under every policy. Only a short window under `flush-divide-by-K` divides each micro-batch's
/// summed loss by (its own loss terms × k): its mean ÷ K.
WindowPlan planWindow(SampleStream& stream, int64_t m, int64_t k, WindowPolicy policy,
                      int64_t budget_left, const RowWeight& weigh = {});

/// The same window with its single micro-batch cut in two halves (same scales, so the same
/// update): lets a K = 1 arm measure gradient noise at two batch sizes.
WindowPlan splitInHalves(const WindowPlan& plan);

/// A K = 1 arm with noise statistics on splits every this many-th window in halves. A probe
/// window costs 1.6× a whole one at m = 8 on the MLP 784-256-10 (449 against 280 µs; 1.35× at
/// m = 32): every 4th window cost 8–13% of a K = 1 arm's samples/s, every 8th costs 4–8%.
/// The noise EMAs weigh each probe alike, so they average over 8× as many windows as probes.
constexpr int64_t kNoiseProbeEvery = 8;

/// The same window with every micro-batch larger than `cap` cut into consecutive pieces of
/// at most `cap` rows, each keeping its micro-batch's loss scale: the same samples and the
/// same scaled sum, so the same update, in pieces that need less memory. Records batch_of.
WindowPlan splitPieces(const WindowPlan& plan, int64_t cap);

/// Worker `rank` of `workers`' share of a window: micro-batches rank, rank + N, rank + 2N, …
/// (a short window leaves the last workers fewer, or none). Summing every share's gradient
/// gives the window's.
WindowPlan shardOf(const WindowPlan& plan, int rank, int workers);

/// The sample position of the first window boundary at or after `position` for an arm at
/// `consumed` taking windows of `window` samples, capped by `budget` and, under every policy
/// but stream, by the end of each `epoch` (dropped samples count as consumed): planWindow's
/// arithmetic, without taking samples.
int64_t windowBoundaryAtOrAfter(int64_t consumed, int64_t position, int64_t window, int64_t budget,
                                int64_t epoch, WindowPolicy policy);

/// Splits rows into consecutive micro-batches of `m` (the last may be shorter).
std::vector<torch::Tensor> splitMicroBatches(const torch::Tensor& rows, int64_t m);

}  // namespace accumlab
