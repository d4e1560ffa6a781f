// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the CUDA tests share: they skip, saying why, where LibTorch has no CUDA device, so the
// same binary passes on a CPU-only machine and tests the GPU path where there is one
// (scripts/device-check runs them there).
#include <gtest/gtest.h>

#include <string>

#include "accumlab/device.h"

namespace accumlab::testing {

/// The device the CUDA tests train on: the last GPU, so that on a machine with several a
/// training thread left on cuda:0 shows.
inline std::string cudaTestDevice() { return "cuda:" + std::to_string(cudaDeviceCount() - 1); }

}  // namespace accumlab::testing

/// Skips the test where torch::cuda::is_available() is false.
#define ACCUMLAB_SKIP_WITHOUT_CUDA()                                                     \
  if (!::accumlab::cudaAvailable())                                                      \
  GTEST_SKIP() << "no CUDA device: this LibTorch was built without CUDA or sees no GPU " \
                  "(scripts/device-check runs this test on a GPU)"
