// SPDX-License-Identifier: GPL-3.0-or-later
// Training's rules without LibTorch (core/train/training_rules.cpp): the LR scaling and the
// arms at once.
#include "accumlab/training_rules.h"

#include <gtest/gtest.h>

namespace accumlab {
namespace {

TEST(LrScaling, ScalesTheBaseLrByTheBatchRatio) {
  OptimizerConfig c;
  c.lr = 0.01;
  EXPECT_DOUBLE_EQ(scaledLearningRate(c, 16), 0.01);
  c.scaling = LrScaling::kLinear;
  EXPECT_DOUBLE_EQ(scaledLearningRate(c, 16), 0.16);
  c.scaling = LrScaling::kSqrt;
  EXPECT_DOUBLE_EQ(scaledLearningRate(c, 16), 0.04);
  EXPECT_DOUBLE_EQ(scaledLearningRate(c, 1), 0.01);  // no-accum keeps the base LR
}

TEST(ArmsAtOnce, FollowArmThreadsOnTheCpuAndNeverExceedTheArms) {
  ExperimentConfig c;  // three arms
  c.arm_threads = 1;
  EXPECT_EQ(armsAtOnce(c, 8, true), 1);
  c.arm_threads = 0;  // one per core
  EXPECT_EQ(armsAtOnce(c, 2, true), 2);
  EXPECT_EQ(armsAtOnce(c, 8, true), 3);  // no more threads than arms
  c.arm_threads = 2;
  EXPECT_EQ(armsAtOnce(c, 8, true), 2);
  EXPECT_EQ(armsAtOnce(c, 8, false), 1);  // on a GPU, one after another
  c.workers = 2;
  EXPECT_EQ(armsAtOnce(c, 8, true), 1);  // data-parallel ranks keep one thread
}

}  // namespace
}  // namespace accumlab
