// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace accumlab {

/// One arm's random numbers. Before each window the arm reseeds the process's default
/// generators (CPU, and the CUDA device's when it trains there) from the experiment seed and
/// the window's first sample, so dropout and every other random op draw a stream that
/// depends on nothing but (seed, window): a run is reproducible bit for bit, no arm's draws
/// depend on another's, and arms that train the same window (accum and big-batch) draw the
/// same stream. Reseeding costs a microsecond; saving and restoring a generator's state
/// around every window cost 15% of the training speed at m = 8.
/// Used on the training thread only.
class ArmRandom {
 public:
  ArmRandom(uint64_t seed, const torch::Device& device);

  /// Seeds the default generators for the window that starts at sample `window_start`.
  void seedWindow(int64_t window_start);

 private:
  uint64_t seed_;
  std::vector<at::Generator> generators_;  ///< the process-wide default generators used
};

}  // namespace accumlab
