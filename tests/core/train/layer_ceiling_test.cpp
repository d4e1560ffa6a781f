// SPDX-License-Identifier: GPL-3.0-or-later
// The measured ceiling: a model's first layer's forward alone, timed before a run trains.
#include "train/layer_ceiling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "accumlab/trainer.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::RecordingSink;

TEST(LayerCeiling, TheMlpsFirstGemmIsTimed) {
  auto mlp = makeModelFactory("mlp:256", {784}, 10, 1)->create();
  const ArmCeiling c = measureCeiling(ArmKind::kAccum, mlp->flopsPerSample(), mlp->ceilingLayer(),
                                      32, torch::kCPU, torch::kFloat32);
  EXPECT_TRUE(std::isfinite(c.gflop_per_s));
  EXPECT_GT(c.gflop_per_s, 0.0);
  EXPECT_EQ(c.flops_per_sample, mlp->flopsPerSample());
  EXPECT_EQ(c.op, "GEMM 32×784 by 784×256");
}

TEST(LayerCeiling, TheCnnsFirstConvolutionIsTimed) {
  auto cnn = makeModelFactory("cnn", {1, 28, 28}, 10, 1)->create();
  const ArmCeiling c = measureCeiling(ArmKind::kNoAccum, cnn->flopsPerSample(), cnn->ceilingLayer(),
                                      4, torch::kCPU, torch::kFloat64);
  EXPECT_GT(c.gflop_per_s, 0.0);
  EXPECT_TRUE(std::isfinite(c.gflop_per_s));
  EXPECT_EQ(c.op, "5×5 convolution 1→6 channels on 4 images of 28×28");
}

TEST(LayerCeiling, AModelWithoutFlopCountsHasNone) {
  // A TorchScript model counts no FLOPs and names no first layer (Model's defaults).
  const ArmCeiling c =
      measureCeiling(ArmKind::kAccum, 0.0, CeilingLayer{}, 32, torch::kCPU, torch::kFloat32);
  EXPECT_TRUE(std::isnan(c.gflop_per_s));
  EXPECT_TRUE(std::isnan(c.flops_per_sample));
  EXPECT_TRUE(c.op.empty());
}

TEST(LayerCeiling, DrawsNoRandomNumbers) {
  auto mlp = makeModelFactory("mlp:64", {100}, 10, 1)->create();
  torch::manual_seed(7);
  const torch::Tensor without = torch::randn({8});
  torch::manual_seed(7);
  measureCeiling(ArmKind::kAccum, mlp->flopsPerSample(), mlp->ceilingLayer(), 16, torch::kCPU,
                 torch::kFloat32);
  EXPECT_TRUE(torch::equal(torch::randn({8}), without));
}

TEST(LayerCeiling, EachArmHasItsOwnMicroBatchsCeiling) {
  ExperimentConfig c;
  c.data = "blobs";
  c.synthetic_samples = 2000;
  c.model = "mlp:32";
  c.micro_batch = 8;
  c.accum = 4;
  c.samples = 2000;
  c.device = "cpu";
  c.arms = {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch};
  Trainer trainer(c);
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  // Told as the run starts, for a front end's GFLOP/s before any summary.
  ASSERT_EQ(sink.info.ceilings.size(), 3u);
  for (const ArmCeiling& told : sink.info.ceilings) {
    const ArmSummary& a = armOf(s, told.arm);
    EXPECT_GT(a.ceiling_gflop_per_s, 0.0) << toString(told.arm);
    EXPECT_TRUE(std::isfinite(a.ceiling_gflop_per_s));
    EXPECT_EQ(a.ceiling_gflop_per_s, told.gflop_per_s);
    EXPECT_EQ(a.ceiling_op, told.op);
    EXPECT_EQ(a.flops_per_sample, told.flops_per_sample);
  }
  // no-accum and accum share m = 8 (one timing); big-batch trains at m·K = 32.
  EXPECT_EQ(armOf(s, ArmKind::kAccum).ceiling_op.rfind("GEMM 8×", 0), 0u);
  EXPECT_EQ(armOf(s, ArmKind::kNoAccum).ceiling_gflop_per_s,
            armOf(s, ArmKind::kAccum).ceiling_gflop_per_s);
  EXPECT_EQ(armOf(s, ArmKind::kBigBatch).ceiling_op.rfind("GEMM 32×", 0), 0u);
}

}  // namespace
}  // namespace accumlab
