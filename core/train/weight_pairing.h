// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace accumlab {

/// Compares accum's weights with big-batch's after every step both take, however the two
/// are scheduled: one after the other on one thread, or each on its own in a round, where
/// either may run steps ahead. The first of the two to finish a step leaves a copy of its
/// weights; the second compares its own with that copy at once. Safe from any thread.
class WeightPairing {
 public:
  enum class Side { kAccum, kBigBatch };

  /// `side` has just finished the step that brought it to `samples` seen; `weights` are its
  /// weights now (read on the thread that trains it, so they do not move meanwhile).
  void arrive(Side side, int64_t step, int64_t samples, const std::vector<torch::Tensor>& weights);
  /// max relative difference of accum's weights from big-batch's after `step` at `samples`,
  /// once both have arrived there; given once. Copies left for this step or earlier ones
  /// are dropped: big-batch's record of the step has been told.
  std::optional<double> take(int64_t step, int64_t samples);
  /// Drops the copies `side` left for a partner that will not come (an arm that has ended).
  void dropLeftBy(Side side);
  /// Copies waiting for their partner (for tests: a round leaves none behind).
  size_t waiting() const;

 private:
  using Key = std::pair<int64_t, int64_t>;  ///< step, samples seen
  mutable std::mutex mutex_;
  std::map<Key, std::pair<Side, std::vector<torch::Tensor>>> waiting_;
  std::map<Key, double> compared_;
};

}  // namespace accumlab
