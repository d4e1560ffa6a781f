// SPDX-License-Identifier: GPL-3.0-or-later
// WeightPairing compares accum's weights with big-batch's after each step, whichever of the
// two gets there first.
#include "train/weight_pairing.h"

#include <gtest/gtest.h>

#include <thread>

#include "stats/weight_diff.h"

namespace accumlab {
namespace {

using Side = WeightPairing::Side;

std::vector<torch::Tensor> weights(double a, double b) {
  return {torch::full({3}, a, torch::kFloat64), torch::full({2, 2}, b, torch::kFloat64)};
}

TEST(WeightPairing, GivesTheSameNumberWhicheverArmArrivesFirst) {
  const auto accum = weights(1.0, 2.0);
  const auto big = weights(1.5, 2.0);
  const double expected = maxRelativeWeightDifference(accum, big);  // relative to big-batch's
  EXPECT_DOUBLE_EQ(expected, 0.5 / 1.5);

  WeightPairing accum_first;
  accum_first.arrive(Side::kAccum, 1, 64, accum);
  EXPECT_FALSE(accum_first.take(1, 64).has_value()) << "big-batch has not arrived";
  accum_first.arrive(Side::kAccum, 2, 128, accum);
  accum_first.arrive(Side::kBigBatch, 2, 128, big);
  EXPECT_EQ(accum_first.take(2, 128), expected);
  EXPECT_FALSE(accum_first.take(2, 128).has_value()) << "given once";

  WeightPairing big_first;
  big_first.arrive(Side::kBigBatch, 1, 64, big);
  big_first.arrive(Side::kAccum, 1, 64, accum);
  EXPECT_EQ(big_first.take(1, 64), expected);
  EXPECT_EQ(big_first.waiting(), 0U);
}

TEST(WeightPairing, KeepsACopyNotTheLiveWeights) {
  auto accum = weights(1.0, 2.0);
  WeightPairing pairing;
  pairing.arrive(Side::kAccum, 1, 64, accum);
  accum[0].add_(10.0);  // accum trains on before big-batch gets to step 1
  pairing.arrive(Side::kBigBatch, 1, 64, weights(1.0, 2.0));
  EXPECT_EQ(pairing.take(1, 64), 0.0);
}

TEST(WeightPairing, ForgetsWhatNoPartnerWillCollect) {
  WeightPairing pairing;
  pairing.arrive(Side::kAccum, 1, 64, weights(1, 1));
  pairing.arrive(Side::kAccum, 2, 128, weights(1, 1));
  pairing.arrive(Side::kBigBatch, 3, 192, weights(1, 1));
  EXPECT_EQ(pairing.waiting(), 3U);
  // Big-batch's record of step 2 is told: nothing at or before it can pair any more.
  EXPECT_FALSE(pairing.take(2, 128).has_value());
  EXPECT_EQ(pairing.waiting(), 1U);
  pairing.dropLeftBy(Side::kAccum);
  EXPECT_EQ(pairing.waiting(), 1U);  // big-batch's copy stays while accum may still come
  pairing.dropLeftBy(Side::kBigBatch);
  EXPECT_EQ(pairing.waiting(), 0U);
}

TEST(WeightPairing, PairsArmsOnTwoThreads) {
  WeightPairing pairing;
  constexpr int kSteps = 200;
  const auto run = [&](Side side, double value) {
    for (int s = 1; s <= kSteps; ++s) pairing.arrive(side, s, 64 * s, weights(value * s, 1));
  };
  std::thread a(run, Side::kAccum, 1.0);
  std::thread b(run, Side::kBigBatch, 2.0);
  a.join();
  b.join();
  for (int s = 1; s <= kSteps; ++s) {
    const auto diff = pairing.take(s, 64 * s);
    ASSERT_TRUE(diff.has_value()) << s;
    EXPECT_DOUBLE_EQ(*diff, 0.5) << s;  // |s − 2s| / 2s
  }
  EXPECT_EQ(pairing.waiting(), 0U);
}

}  // namespace
}  // namespace accumlab
