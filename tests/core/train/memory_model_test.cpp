// Memory against theory (core/train/memory_model.cpp and the Trainer's per-arm peaks): a
// window's peak tensor bytes are the fixed weights, gradients and optimizer state plus a
// cost per sample of the micro-batch, so accumulation keeps the memory of m.
#include "accumlab/memory_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "accumlab/input_error.h"
#include "accumlab/trainer.h"
#include "recording_sink.h"

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

/// The peak tensor bytes of one arm of m × K trained for two windows.
int64_t measuredPeak(const std::string& model, ArmKind arm, int64_t m, int64_t k) {
  ExperimentConfig c = imageConfig(model);
  c.arms = {arm};
  c.micro_batch = m;
  c.accum = k;
  c.samples = 2 * armMicroBatch(arm, m, k) * armAccum(arm, m, k);
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

TEST(MemoryModel, TwoProbesPredictTheArmsPeaks) {
  const MemoryModel model = probeMemoryModel(imageConfig("cnn"), 8, 32);
  ASSERT_TRUE(model.valid());
  const double accum = measuredPeak("cnn", ArmKind::kAccum, 16, 16);
  const double big = measuredPeak("cnn", ArmKind::kBigBatch, 16, 16);
  std::printf(
      "cnn model: %.0f B + %.0f B per sample; predicts m=16 %.0f B (accum measured "
      "%.0f B), 256 %.0f B (big-batch measured %.0f B)\n",
      model.fixed_bytes, model.per_sample_bytes, model.predict(16), accum, model.predict(256), big);
  EXPECT_NEAR(model.predict(16) / accum, 1.0, 0.15);
  EXPECT_NEAR(model.predict(256) / big, 1.0, 0.15);
}

TEST(MemoryModel, ProbesMustDiffer) {
  EXPECT_THROW(probeMemoryModel(imageConfig("cnn"), 16, 16), InputError);
}

}  // namespace
}  // namespace accumlab
