// SPDX-License-Identifier: GPL-3.0-or-later
// The heart of AccumLab: accumulating K micro-batches must give the update of one big batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "accumlab/trainer.h"
#include "equivalence_case.h"
#include "recording_sink.h"
#include "tolerances.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::EquivalenceCase;
using testing::kFloat32Tolerance;
using testing::kFloat64Tolerance;
using testing::RecordingSink;

class AccumEqualsBigBatch : public ::testing::TestWithParam<EquivalenceCase> {};

TEST_P(AccumEqualsBigBatch, After100Steps) {
  Trainer trainer(testing::equivalenceConfig(GetParam(), "cpu"));
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  testing::expectAccumEqualsBigBatch(s, sink, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Engine, AccumEqualsBigBatch,
                         ::testing::Combine(::testing::Values("mlp", "cnn"),
                                            ::testing::Values(OptimizerKind::kSgd,
                                                              OptimizerKind::kAdam,
                                                              OptimizerKind::kAdamW),
                                            ::testing::Bool(),
                                            ::testing::Values(DType::kFloat32, DType::kFloat64)),
                         testing::equivalenceCaseName);

TEST(AccumEqualsBigBatch, BatchNormBreaksEquivalence) {
  // BatchNorm normalises by the statistics of each micro-batch, not of the window: the
  // accumulated arm is a different model, and AccumLab must show it.
  ExperimentConfig c =
      testing::equivalenceConfig({"cnn_bn", OptimizerKind::kSgd, false, DType::kFloat32}, "cpu");
  c.samples = 30 * 16 * 8;
  Trainer trainer(c);
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  EXPECT_GT(armOf(s, ArmKind::kAccum).equivalence_rel_diff, 1e-3);
}

}  // namespace
}  // namespace accumlab
