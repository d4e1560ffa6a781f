// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/arm_random.h"

#include <mutex>

namespace accumlab {

namespace {

// SplitMix64's finaliser: nearby inputs (consecutive windows) give unrelated seeds.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

ArmRandom::ArmRandom(uint64_t seed, const torch::Device& device) : seed_(seed) {
  generators_.push_back(at::globalContext().defaultGenerator(torch::Device(torch::kCPU)));
  if (device.is_cuda()) generators_.push_back(at::globalContext().defaultGenerator(device));
}

void ArmRandom::seedWindow(int64_t window_start) {
  const uint64_t window_seed = mix(seed_ ^ mix(static_cast<uint64_t>(window_start)));
  for (at::Generator& g : generators_) {
    // The generator's own mutex guards it against other threads drawing from it.
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_current_seed(window_seed);
  }
}

}  // namespace accumlab
