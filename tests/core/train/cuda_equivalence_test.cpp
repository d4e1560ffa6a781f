// Accumulation equals the big batch on a GPU too (equivalence_test.cpp is the CPU version):
// float32 and float64, MLP and CNN, SGD and AdamW, with and without clipping, on CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "accumlab/trainer.h"
#include "cuda_device.h"
#include "recording_sink.h"
#include "tolerances.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::cudaTestDevice;
using testing::kFloat32Tolerance;
using testing::kFloat64Tolerance;
using testing::RecordingSink;

constexpr int64_t kSteps = 100;
constexpr int64_t kM = 16;
constexpr int64_t kK = 8;
// Below the gradient norms of these runs, so clipping is active.
constexpr double kClipNorm = 0.05;

/// The CPU test's runs (same data, sizes and learning rates), on the GPU.
ExperimentConfig cudaConfig(const std::string& model, OptimizerKind opt, bool clip, DType dtype) {
  ExperimentConfig c;
  c.data = model == "mlp" ? "blobs:64" : "blobs:1x12x12";
  c.synthetic_samples = 3000;
  c.model = model;
  c.micro_batch = kM;
  c.accum = kK;
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  c.optimizer.kind = opt;
  const bool adam = opt != OptimizerKind::kSgd;
  c.optimizer.lr = model == "mlp" ? (adam ? 1e-3 : 0.05) : (adam ? 3e-4 : 0.01);
  c.optimizer.momentum = 0.9;
  c.optimizer.weight_decay = opt == OptimizerKind::kAdamW ? 0.05 : 0.0;
  c.optimizer.clip_norm = clip ? kClipNorm : 0.0;
  c.dtype = dtype;
  c.samples = kSteps * kM * kK;
  c.eval_every = c.samples;
  c.device = cudaTestDevice();
  return c;
}

using Case = std::tuple<std::string, OptimizerKind, bool, DType>;

class CudaAccumEqualsBigBatch : public ::testing::TestWithParam<Case> {};

TEST_P(CudaAccumEqualsBigBatch, After100Steps) {
  ACCUMLAB_SKIP_WITHOUT_CUDA();
  const auto& [model, opt, clip, dtype] = GetParam();
  Trainer trainer(cudaConfig(model, opt, clip, dtype));
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  EXPECT_EQ(s.info.device, cudaTestDevice());
  const ArmSummary& accum = armOf(s, ArmKind::kAccum);
  const ArmSummary& big = armOf(s, ArmKind::kBigBatch);
  ASSERT_EQ(accum.status, ArmStatus::kFinished) << accum.message;
  ASSERT_EQ(big.status, ArmStatus::kFinished) << big.message;
  ASSERT_EQ(accum.steps, kSteps);
  ASSERT_EQ(big.steps, kSteps);
  // Rounding level, as on the CPU: the trainer turns TF32 off, so float32 is float32.
  const double tol = dtype == DType::kFloat32 ? kFloat32Tolerance : kFloat64Tolerance;
  ::testing::Test::RecordProperty("equivalence_rel_diff", std::to_string(accum.equivalence_rel_diff));
  ::testing::Test::RecordProperty("grad_equivalence_rel_diff",
                                  std::to_string(accum.grad_equivalence_rel_diff));
  EXPECT_LE(accum.equivalence_rel_diff, tol);
  EXPECT_LE(accum.grad_equivalence_rel_diff, tol);
  EXPECT_GT(accum.grad_equivalence_checks, 0);
  double max_norm = 0;
  for (const auto& r : sink.of(ArmKind::kAccum)) max_norm = std::max(max_norm, r.grad_norm);
  EXPECT_GT(max_norm, 0.0);  // the weights moved
  if (clip) {
    EXPECT_GT(max_norm, kClipNorm) << "clipping never engaged";
  }
  const auto a = sink.of(ArmKind::kAccum), b = sink.of(ArmKind::kBigBatch);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i].loss, b[i].loss, dtype == DType::kFloat32 ? 1e-4 : 1e-10) << "step " << i;
  }
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  const auto& [model, opt, clip, dtype] = info.param;
  return model + "_" + toString(opt) + (clip ? "_clip_" : "_noclip_") + toString(dtype);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, CudaAccumEqualsBigBatch,
    ::testing::Combine(::testing::Values("mlp", "cnn"),
                       ::testing::Values(OptimizerKind::kSgd, OptimizerKind::kAdamW),
                       ::testing::Bool(), ::testing::Values(DType::kFloat32, DType::kFloat64)),
    caseName);

}  // namespace
}  // namespace accumlab
