// SPDX-License-Identifier: GPL-3.0-or-later
// A pitfall arm's gradient checks in words (pitfallDeviation) and the tally they come from:
// full windows apart from uneven ones, the first and the last check.
#include <gtest/gtest.h>

#include "accumlab/records.h"

namespace accumlab {
namespace {

/// A checked window of `samples` samples in micro-batches of 16 (`batches` of them).
StepRecord checked(double equiv, int64_t samples, int64_t batches) {
  StepRecord r;
  r.micro_batch = 16;
  r.accum = batches;
  r.window_samples = samples;
  r.grad_equiv = equiv;
  return r;
}

ArmSummary summaryOf(ArmKind arm, const std::vector<StepRecord>& steps) {
  ArmSummary s;
  s.arm = arm;
  s.accum = 4;
  setGradChecks(s, tallyGradChecks(steps));
  return s;
}

TEST(GradCheckTally, TellsUnevenWindowsFromFullOnes) {
  // Full windows of 4 × 16, a run's last window of 2 × 16, an epoch's end of 16 + 16 + 5.
  const std::vector<StepRecord> steps = {checked(0.1, 64, 4), checked(0.3, 64, 4),
                                         checked(0.5, 32, 2), StepRecord{}, checked(0.7, 37, 3)};
  const GradCheckTally t = tallyGradChecks(steps);
  EXPECT_EQ(t.checks, 4);
  EXPECT_EQ(t.uneven_checks, 2);
  EXPECT_DOUBLE_EQ(t.meanFull(), 0.2);
  EXPECT_EQ(t.max_uneven, 0.7);
  EXPECT_EQ(t.first, 0.1);
  EXPECT_EQ(t.last, 0.7);
}

TEST(PitfallDeviation, SaysEachMistakeInWords) {
  // sum on full windows: |K·G − G| / |G| = K − 1, so ×K; its short window (×2) is left out.
  const ArmSummary sum = summaryOf(ArmKind::kPitfallSum,
                                   {checked(3.0, 64, 4), checked(3.0, 64, 4), checked(1.0, 32, 2)});
  EXPECT_EQ(pitfallDeviation(sum, DType::kFloat32, true), "updates ×4.00 the true one");
  EXPECT_EQ(pitfallDeviation(sum, DType::kFloat32),
            "×4.00 the big-batch gradient on full windows (theory: ×4, K)");

  const ArmSummary mean_of_means =
      summaryOf(ArmKind::kPitfallMeanOfMeans,
                {checked(1e-7, 64, 4), checked(1.2e-7, 64, 4), checked(0.5, 32, 2)});
  EXPECT_EQ(pitfallDeviation(mean_of_means, DType::kFloat32),
            "exact on full windows (1.1e-07), 0.50 off at 1 uneven window (an epoch's or the "
            "run's end)");
  EXPECT_EQ(pitfallDeviation(mean_of_means, DType::kFloat32, true),
            "exact, gradient 50% off the true one at uneven windows");
  const ArmSummary all_full =
      summaryOf(ArmKind::kPitfallMeanOfMeans, {checked(1e-7, 64, 4), checked(1e-7, 64, 4)});
  EXPECT_EQ(pitfallDeviation(all_full, DType::kFloat32, true), "exact");

  const ArmSummary no_zero = summaryOf(
      ArmKind::kPitfallNoZero, {checked(3.3, 64, 4), checked(40, 64, 4), checked(137, 64, 4)});
  EXPECT_EQ(pitfallDeviation(no_zero, DType::kFloat32),
            "3.3 off the big-batch gradient at the first check, 137 at the last: every update "
            "adds all earlier gradients again");
  EXPECT_EQ(pitfallDeviation(no_zero, DType::kFloat32, true),
            "gradient 13700% off the true one, growing");

  const ArmSummary last_only =
      summaryOf(ArmKind::kPitfallLastOnly, {checked(0.5, 64, 4), checked(1.5, 64, 4)});
  EXPECT_EQ(pitfallDeviation(last_only, DType::kFloat32, true), "gradient 100% off the true one");
  EXPECT_EQ(pitfallDeviation(last_only, DType::kFloat32),
            "typically 1.00 off the big-batch gradient (|g − G| / |G|, the mean of 2 checks of "
            "full windows; the largest 1.50)");

  const ArmSummary schedule =
      summaryOf(ArmKind::kPitfallSchedulePerMicro, {checked(1e-7, 64, 4), checked(2e-7, 32, 2)});
  EXPECT_EQ(pitfallDeviation(schedule, DType::kFloat32),
            "its gradient is exact (2.0e-07): the mistake is in its LR, which the check cannot "
            "see");
  EXPECT_EQ(pitfallDeviation(schedule, DType::kFloat32, true), "exact (the LR is wrong)");
  // In float64 the same figure is no longer rounding.
  EXPECT_NE(pitfallDeviation(schedule, DType::kFloat64).find("off"), std::string::npos);
}

TEST(PitfallDeviation, IsEmptyForRightArmsAndArmsWithoutChecks) {
  EXPECT_EQ(pitfallDeviation(summaryOf(ArmKind::kAccum, {checked(1e-7, 64, 4)}), DType::kFloat32),
            "");
  EXPECT_EQ(pitfallDeviation(summaryOf(ArmKind::kPitfallSum, {}), DType::kFloat32), "");
}

}  // namespace
}  // namespace accumlab
