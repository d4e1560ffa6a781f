// SPDX-License-Identifier: GPL-3.0-or-later
// Subnormal floats are flushed to zero on the training threads (flushDenormals).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "accumlab/device.h"

namespace accumlab {
namespace {

/// 1e-38 × 0.01 is 1e-40, a float32 subnormal: 0 when they are flushed.
float subnormalProduct() {
  const torch::Tensor small = torch::full({4}, 1e-38F);
  return (small * 0.01F).max().item<float>();
}

TEST(FlushDenormals, OnThisThreadAndTheThreadsItStartsAfter) {
  // A thread that does not flush computes the subnormal (the check is meaningful).
  float unflushed = -1;
  std::thread([&] {
    at::globalContext().setFlushDenormal(false);
    unflushed = subnormalProduct();
  }).join();
  EXPECT_GT(unflushed, 0.0F);
  flushDenormals();
  EXPECT_EQ(subnormalProduct(), 0.0F);
  // The arms of a round train on threads the run's thread starts: they inherit the mode.
  float after = -1;
  std::thread([&] { after = subnormalProduct(); }).join();
  EXPECT_EQ(after, 0.0F);
  // Numbers in the normal range are untouched.
  EXPECT_FLOAT_EQ((torch::full({1}, 1e-30F) * 0.01F).item<float>(), 1e-32F);
}

}  // namespace
}  // namespace accumlab
