// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace accumlab {

/// The order in which training samples are drawn: a fresh seeded permutation per epoch.
/// Two streams with the same seed and size yield the same rows, so every arm sees the same
/// samples in the same order. Owned by one arm on the training thread.
class SampleStream {
 public:
  SampleStream(int64_t size, uint64_t seed);

  /// Takes the next `count` rows; crosses into the next epoch when this one runs out.
  torch::Tensor take(int64_t count);
  /// Rows left before the current epoch ends (an epoch that just ended counts as a new one).
  int64_t remainingInEpoch() const;
  /// Puts the stream where it stands after `consumed` rows were taken from the start (a
  /// checkpoint's position): the epoch's permutation is a function of the seed alone.
  void seek(int64_t consumed);
  /// Rows taken so far, over all epochs.
  int64_t consumed() const { return consumed_; }
  int64_t epoch() const { return epoch_; }
  int64_t size() const { return size_; }

 private:
  void shuffleEpoch();

  int64_t size_;
  uint64_t seed_;
  int64_t epoch_ = 0;
  int64_t position_ = 0;
  int64_t consumed_ = 0;
  std::vector<int64_t> order_;
};

}  // namespace accumlab
