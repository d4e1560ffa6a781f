// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/window_plan.h"

#include <gtest/gtest.h>

namespace accumlab {
namespace {

TEST(WindowPlan, StreamWindowsCrossEpochEnds) {
  SampleStream stream(10, 1);
  planWindow(stream, 4, 2, WindowPolicy::kStream, 100);  // 8 of 10
  const WindowPlan plan = planWindow(stream, 4, 2, WindowPolicy::kStream, 100);
  EXPECT_EQ(plan.samples, 8);
  EXPECT_FALSE(plan.partial);
  ASSERT_EQ(plan.micro_batches.size(), 2u);
  for (double s : plan.loss_scales) EXPECT_DOUBLE_EQ(s, 1.0 / 8);
}

TEST(WindowPlan, FlushExactEndsAtTheEpochWithTrueCount) {
  SampleStream stream(10, 1);
  planWindow(stream, 4, 2, WindowPolicy::kFlushExact, 100);
  const WindowPlan plan = planWindow(stream, 4, 2, WindowPolicy::kFlushExact, 100);
  EXPECT_EQ(plan.samples, 2);
  EXPECT_TRUE(plan.partial);
  ASSERT_EQ(plan.loss_scales.size(), 1u);
  EXPECT_DOUBLE_EQ(plan.loss_scales[0], 1.0 / 2);
}

TEST(WindowPlan, DivideByKUnderScalesShortWindows) {
  SampleStream stream(10, 1);
  planWindow(stream, 4, 2, WindowPolicy::kFlushDivideByK, 100);
  const WindowPlan plan = planWindow(stream, 4, 2, WindowPolicy::kFlushDivideByK, 100);
  ASSERT_EQ(plan.loss_scales.size(), 1u);
  EXPECT_DOUBLE_EQ(plan.loss_scales[0], 1.0 / (2 * 2));  // mean / K
  EXPECT_FALSE(plan.exact_mean);
}

// Text: a micro-batch's loss terms are its tokens, which differ from one micro-batch to the
// next. flush-divide-by-K keeps every full window exact (÷ the window's tokens) and takes each
// micro-batch's per-token mean ÷ K only in the window cut short at the epoch end.
TEST(WindowPlan, DivideByKKeepsFullWindowsOfTokensExact) {
  const RowWeight tokens = [](const torch::Tensor& rows) {
    return static_cast<double>((rows + 1).sum().item<int64_t>());  // row r has r + 1 tokens
  };
  SampleStream stream(10, 1);
  const WindowPlan full = planWindow(stream, 4, 2, WindowPolicy::kFlushDivideByK, 100, tokens);
  ASSERT_EQ(full.weights.size(), 2u);
  ASSERT_NE(full.weights[0], full.weights[1]);
  EXPECT_TRUE(full.exact_mean);
  for (double s : full.loss_scales) EXPECT_DOUBLE_EQ(s, 1.0 / full.weight);
  const WindowPlan shortened = planWindow(stream, 4, 2, WindowPolicy::kFlushDivideByK, 100, tokens);
  ASSERT_TRUE(shortened.partial);
  ASSERT_EQ(shortened.loss_scales.size(), 1u);
  EXPECT_DOUBLE_EQ(shortened.loss_scales[0], 1.0 / (shortened.weights[0] * 2));  // mean / K
  EXPECT_FALSE(shortened.exact_mean);
}

TEST(WindowPlan, DropDiscardsThePartialWindow) {
  SampleStream stream(10, 1);
  planWindow(stream, 4, 2, WindowPolicy::kDrop, 100);
  const WindowPlan plan = planWindow(stream, 4, 2, WindowPolicy::kDrop, 100);
  EXPECT_TRUE(plan.dropped);
  EXPECT_EQ(plan.consumed, 2);
  EXPECT_EQ(plan.samples, 0);
  EXPECT_EQ(stream.consumed(), 10);
}

TEST(WindowPlan, BudgetEndInStreamIsNormalisedExactly) {
  SampleStream stream(100, 1);
  const WindowPlan plan = planWindow(stream, 4, 4, WindowPolicy::kStream, 6);
  EXPECT_EQ(plan.samples, 6);
  ASSERT_EQ(plan.micro_batches.size(), 2u);
  EXPECT_EQ(plan.micro_batches[1].size(0), 2);
  for (double s : plan.loss_scales) EXPECT_DOUBLE_EQ(s, 1.0 / 6);
}

TEST(WindowPlan, PiecesKeepTheRowsTheirOrderAndTheirMicroBatchsScale) {
  SampleStream stream(100, 3);
  // A short window under flush-divide-by-K: scales differ per micro-batch (1/(n·K)).
  const WindowPlan plan = planWindow(stream, 5, 3, WindowPolicy::kFlushDivideByK, 12);
  ASSERT_EQ(plan.micro_batches.size(), 3u);  // 5, 5, 2
  const WindowPlan pieces = splitPieces(plan, 2);
  std::vector<int64_t> sizes;
  for (const auto& p : pieces.micro_batches) sizes.push_back(p.size(0));
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2, 1, 2, 2, 1, 2}));
  EXPECT_EQ(pieces.batch_of, (std::vector<size_t>{0, 0, 0, 1, 1, 1, 2}));
  for (size_t i = 0; i < pieces.micro_batches.size(); ++i) {
    EXPECT_DOUBLE_EQ(pieces.loss_scales[i], plan.loss_scales[pieces.batch_of[i]]);
  }
  EXPECT_TRUE(torch::equal(torch::cat(pieces.micro_batches), torch::cat(plan.micro_batches)));
  EXPECT_EQ(pieces.samples, plan.samples);
  EXPECT_EQ(pieces.exact_mean, plan.exact_mean);
  // Splitting again maps to the planned micro-batches, not to the pieces.
  const WindowPlan ones = splitPieces(pieces, 1);
  EXPECT_EQ(ones.micro_batches.size(), 12u);
  EXPECT_EQ(ones.batch_of.back(), 2u);
  // A cap at or above m changes nothing but the map.
  EXPECT_EQ(splitPieces(plan, 5).micro_batches.size(), 3u);
}

TEST(SampleStream, SameSeedSameOrderAndEachEpochIsAPermutation) {
  SampleStream a(50, 7), b(50, 7);
  torch::Tensor ra = a.take(120), rb = b.take(120);
  EXPECT_TRUE(torch::equal(ra, rb));
  torch::Tensor first = std::get<0>(ra.slice(0, 0, 50).sort());
  EXPECT_TRUE(torch::equal(first, torch::arange(50, torch::kLong)));
  EXPECT_FALSE(torch::equal(ra.slice(0, 0, 50), ra.slice(0, 50, 100)));  // reshuffled
}

}  // namespace
}  // namespace accumlab
