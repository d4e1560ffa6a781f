// SPDX-License-Identifier: GPL-3.0-or-later
// Memory against theory (core/memory/memory_model.cpp and the Trainer's per-arm peaks): a
// window's peak tensor bytes are the fixed weights, gradients and optimizer state plus a
// cost per sample of the micro-batch, so accumulation keeps the memory of m.
#include "accumlab/memory_model.h"
#include "accumlab/memory_model_probe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "accumlab/input_error.h"
#include "accumlab/trainer.h"
#include "recording_sink.h"
#include "train/window_plan.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::RecordingSink;

ExperimentConfig imageConfig(const std::string& model) {
  ExperimentConfig c;
  c.data = "blobs:1x28x28";
  c.synthetic_samples = 1200;
  c.model = model;
  c.device = "cpu";
  c.threads = 1;
  return c;
}

/// The peak tensor bytes of one arm of m × K trained for kNoiseProbeEvery windows (with noise
/// statistics, a K = 1 arm's last one is split in halves).
int64_t measuredPeak(const std::string& model, ArmKind arm, int64_t m, int64_t k) {
  ExperimentConfig c = imageConfig(model);
  c.arms = {arm};
  c.micro_batch = m;
  c.accum = k;
  c.samples = kNoiseProbeEvery * armMicroBatch(arm, m, k) * armAccum(arm, m, k);
  Trainer trainer(c);
  RecordingSink sink;
  return armOf(trainer.run(sink), arm).peak_tensor_bytes;
}

TEST(MemoryModel, CnnPeakIsAStraightLineInTheMicroBatch) {
  const std::vector<double> ms = {8, 16, 32, 64};
  std::vector<double> peaks;
  for (double m : ms) peaks.push_back(measuredPeak("cnn", ArmKind::kNoAccum, int64_t(m), 1));
  // Least squares y = a + b·m and its R².
  const double n = static_cast<double>(ms.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < ms.size(); ++i) {
    sx += ms[i];
    sy += peaks[i];
    sxx += ms[i] * ms[i];
    sxy += ms[i] * peaks[i];
  }
  const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double a = (sy - b * sx) / n;
  double ss_res = 0, ss_tot = 0;
  for (size_t i = 0; i < ms.size(); ++i) {
    ss_res += std::pow(peaks[i] - (a + b * ms[i]), 2);
    ss_tot += std::pow(peaks[i] - sy / n, 2);
  }
  const double r2 = 1 - ss_res / ss_tot;
  for (size_t i = 0; i < ms.size(); ++i) {
    std::printf("cnn m=%-3.0f peak tensors %8.0f B (line: %8.0f B)\n", ms[i], peaks[i],
                a + b * ms[i]);
  }
  std::printf("cnn peak = %.0f B + %.0f B per sample, R² = %.5f\n", a, b, r2);
  EXPECT_GE(r2, 0.99);
  EXPECT_GT(b, 0);
  EXPECT_GT(a, 0);
}

TEST(MemoryModel, CnnAccumUsesAtMostHalfTheMemoryOfBigBatch) {
  const double accum = measuredPeak("cnn", ArmKind::kAccum, 16, 16);
  const double big = measuredPeak("cnn", ArmKind::kBigBatch, 16, 16);
  std::printf("cnn peak tensors: accum 16x16 %.0f B, big-batch 256x1 %.0f B, ratio %.3f\n", accum,
              big, accum / big);
  EXPECT_LE(accum / big, 0.5);
}

TEST(MemoryModel, MlpIsDominatedByItsParameters) {
  // An MLP's weights are most of its memory and its activations per sample are small, so
  // accumulation saves less than on the CNN: the ratio is nearer 1.
  const double mlp = double(measuredPeak("mlp", ArmKind::kAccum, 16, 16)) /
                     double(measuredPeak("mlp", ArmKind::kBigBatch, 16, 16));
  const double cnn = double(measuredPeak("cnn", ArmKind::kAccum, 16, 16)) /
                     double(measuredPeak("cnn", ArmKind::kBigBatch, 16, 16));
  std::printf("accum 16x16 ÷ big-batch 256x1 peak tensors: mlp %.3f, cnn %.3f\n", mlp, cnn);
  EXPECT_GT(mlp, cnn);
}

TEST(MemoryModel, TheProbesPredictTheArmsPeaks) {
  // The CNN's activations dominate; the MLP's weights do, so there what accumulating adds (a
  // later micro-batch's gradient before it is summed in) is most of the difference between
  // accum and big-batch, and a model without it missed accum's peak by 40%.
  for (const char* name : {"cnn", "mlp"}) {
    const MemoryModel model = probeMemoryModel(imageConfig(name), 8, 32);
    ASSERT_TRUE(model.valid());
    const double accum = measuredPeak(name, ArmKind::kAccum, 16, 16);
    const double big = measuredPeak(name, ArmKind::kBigBatch, 16, 16);
    std::printf(
        "%s model: %.0f B + %.0f B per sample + %.0f B to accumulate; predicts 16x16 %.0f B "
        "(accum measured %.0f B), 256x1 %.0f B (big-batch measured %.0f B)\n",
        name, model.fixed_bytes, model.per_sample_bytes, model.accum_extra_bytes,
        model.predict(16, 16), accum, model.predict(256), big);
    EXPECT_GT(model.accum_extra_bytes, 0.0) << name;
    EXPECT_TRUE(model.k1_splits) << name;
    EXPECT_NEAR(model.predict(16, 16) / accum, 1.0, 0.1) << name;
    EXPECT_NEAR(model.predict(256) / big, 1.0, 0.1) << name;
  }
}

/// 1 MiB fixed + 64 KiB per sample (+ `extra` when K > 1).
MemoryModel knownModel(double extra = 0) {
  MemoryModel m;
  m.fixed_bytes = 1 << 20;
  m.per_sample_bytes = 64 << 10;
  m.accum_extra_bytes = extra;
  return m;
}

TEST(MemoryModel, WithoutNoiseStatisticsAOneMicroBatchArmDoesNotAccumulate) {
  ExperimentConfig c = imageConfig("mlp");
  c.noise_stats = false;
  const MemoryModel model = probeMemoryModel(c, 8, 32);
  EXPECT_FALSE(model.k1_splits);
  c.arms = {ArmKind::kBigBatch};
  c.micro_batch = 16;
  c.accum = 16;
  c.samples = 4 * 256;
  Trainer trainer(c);
  RecordingSink sink;
  const double big = armOf(trainer.run(sink), ArmKind::kBigBatch).peak_tensor_bytes;
  EXPECT_NEAR(model.predict(256) / big, 1.0, 0.02);
  // Without noise statistics the fused MLP adds each micro-batch's gradient in place
  // (train/fused_mlp.h): accumulating holds nothing more than the biases' parts.
  EXPECT_LT(model.accum_extra_bytes, 0.01 * big);
}

TEST(MemoryModel, AOneMicroBatchArmPeaksAtTheLargerOfItsWholeAndSplitWindows) {
  // With noise statistics, a K = 1 arm's probe windows hold two halves and the extra: for the
  // MLP at m = 32 that is more than the whole batch's activations (32 × ~3.7 KB < 400 KB).
  const MemoryModel model = probeMemoryModel(imageConfig("mlp"), 8, 32);
  ASSERT_TRUE(model.k1_splits);
  const double whole = measuredPeak("mlp", ArmKind::kNoAccum, 32, 1);
  EXPECT_NEAR(model.predict(32) / whole, 1.0, 0.02);
  EXPECT_GT(model.predict(32), model.fixed_bytes + 32 * model.per_sample_bytes);
}

TEST(MemoryBudget, CountsWhatAccumulatingAddsOnlyWhenItAccumulates) {
  // 256 KiB to accumulate: 3 MiB leaves 1.75 MiB for samples, 28 of 64 KiB; K = ceil(256/28)
  // = 10, m = ceil(256/10) = 26.
  const BudgetFit fit = fitMemoryBudget(knownModel(256 << 10), 3 << 20, 256);
  EXPECT_EQ(fit.micro_batch, 26);
  EXPECT_EQ(fit.accum, 10);
  EXPECT_LE(fit.predicted_bytes, 3 << 20);
  EXPECT_NE(fit.reason.find("256 KiB to accumulate"), std::string::npos) << fit.reason;
  // A batch that fits whole pays nothing extra: 1 MiB + 16 × 64 KiB = 2 MiB exactly.
  const BudgetFit whole = fitMemoryBudget(knownModel(256 << 10), 2 << 20, 16);
  EXPECT_EQ(whole.accum, 1);
  EXPECT_EQ(whole.micro_batch, 16);
  EXPECT_DOUBLE_EQ(whole.predicted_bytes, 2 << 20);
}

TEST(MemoryBudget, PicksTheLargestMicroBatchThatFits) {
  // 3 MiB leaves 2 MiB for samples: 32 of 64 KiB. 256 = 32 × 8.
  const BudgetFit fit = fitMemoryBudget(knownModel(), 3 << 20, 256);
  EXPECT_EQ(fit.micro_batch, 32);
  EXPECT_EQ(fit.accum, 8);
  EXPECT_DOUBLE_EQ(fit.predicted_bytes, 3 << 20);
  EXPECT_NE(fit.reason.find("m = 32, K = 8"), std::string::npos) << fit.reason;
}

TEST(MemoryBudget, KeepsKAndTakesTheSmallestMicroBatchThatCoversTheBatch) {
  // 2.5 MiB: m = 24 fits (2.5 MiB exactly), K = ceil(256/24) = 11, and 11 micro-batches of
  // ceil(256/11) = 24 cover 256 (264 samples per update: whole micro-batches).
  const BudgetFit fit = fitMemoryBudget(knownModel(), (5 << 20) / 2, 256);
  EXPECT_EQ(fit.accum, 11);
  EXPECT_EQ(fit.micro_batch, 24);
  EXPECT_NE(fit.reason.find("264"), std::string::npos) << fit.reason;
  // 2.2 MiB: m = 19 fits, K = 14, m = ceil(256/14) = 19.
  const BudgetFit tight = fitMemoryBudget(knownModel(), int64_t(2.2 * (1 << 20)), 256);
  EXPECT_EQ(tight.micro_batch, 19);
  EXPECT_EQ(tight.accum, 14);
  EXPECT_LE(tight.predicted_bytes, 2.2 * (1 << 20));
}

TEST(MemoryBudget, AWholeBatchThatFitsIsOneMicroBatch) {
  const BudgetFit fit = fitMemoryBudget(knownModel(), 1 << 30, 256);
  EXPECT_EQ(fit.micro_batch, 256);
  EXPECT_EQ(fit.accum, 1);
}

TEST(MemoryBudget, ABudgetBelowOneSampleIsAnInputError) {
  try {
    fitMemoryBudget(knownModel(), 1 << 20, 256);  // the fixed part alone
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("below the 1.1 MiB"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(MemoryBudget, SizesReadLikePeopleWriteThem) {
  EXPECT_EQ(parseByteSize("200MiB"), 200LL << 20);
  EXPECT_EQ(parseByteSize("1.5GiB"), 3LL << 29);
  EXPECT_EQ(parseByteSize("500MB"), 500'000'000);
  EXPECT_EQ(parseByteSize("64 KiB"), 65536);
  EXPECT_EQ(parseByteSize("4096"), 4096);
  EXPECT_THROW(parseByteSize("lots"), InputError);
  EXPECT_THROW(parseByteSize("12parsecs"), InputError);
  EXPECT_THROW(parseByteSize("-5MiB"), InputError);
}

TEST(MemoryModel, ProbesMustDiffer) {
  EXPECT_THROW(probeMemoryModel(imageConfig("cnn"), 16, 16), InputError);
}

}  // namespace
}  // namespace accumlab
