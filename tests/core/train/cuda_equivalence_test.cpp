// SPDX-License-Identifier: GPL-3.0-or-later
// Accumulation equals the big batch on a GPU too (equivalence_test.cpp is the CPU version):
// float32 and float64, MLP and CNN, SGD and AdamW, with and without clipping, on CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "accumlab/trainer.h"
#include "cuda_device.h"
#include "equivalence_case.h"
#include "recording_sink.h"
#include "tolerances.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::cudaTestDevice;
using testing::EquivalenceCase;
using testing::kFloat32Tolerance;
using testing::kFloat64Tolerance;
using testing::RecordingSink;

/// The CPU test's runs (same data, sizes and learning rates), on the GPU.
class CudaAccumEqualsBigBatch : public ::testing::TestWithParam<EquivalenceCase> {};

TEST_P(CudaAccumEqualsBigBatch, After100Steps) {
  ACCUMLAB_SKIP_WITHOUT_CUDA();
  Trainer trainer(testing::equivalenceConfig(GetParam(), cudaTestDevice()));
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  EXPECT_EQ(s.info.device, cudaTestDevice());
  // Rounding level, as on the CPU: the trainer turns TF32 off, so float32 is float32.
  testing::expectAccumEqualsBigBatch(s, sink, GetParam());
  const ArmSummary& accum = armOf(s, ArmKind::kAccum);
  const double tol =
      std::get<3>(GetParam()) == DType::kFloat32 ? kFloat32Tolerance : kFloat64Tolerance;
  ::testing::Test::RecordProperty("equivalence_rel_diff",
                                  std::to_string(accum.equivalence_rel_diff));
  ::testing::Test::RecordProperty("grad_equivalence_rel_diff",
                                  std::to_string(accum.grad_equivalence_rel_diff));
  EXPECT_LE(accum.grad_equivalence_rel_diff, tol);
  EXPECT_GT(accum.grad_equivalence_checks, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, CudaAccumEqualsBigBatch,
    ::testing::Combine(::testing::Values("mlp", "cnn"),
                       ::testing::Values(OptimizerKind::kSgd, OptimizerKind::kAdamW),
                       ::testing::Bool(), ::testing::Values(DType::kFloat32, DType::kFloat64)),
    testing::equivalenceCaseName);

}  // namespace
}  // namespace accumlab
