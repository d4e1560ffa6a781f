// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The equivalence runs shared by the CPU test (equivalence_test.cpp) and the GPU one
// (cuda_equivalence_test.cpp): the same data, sizes and learning rates on either device.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "accumlab/trainer.h"
#include "recording_sink.h"
#include "tolerances.h"

namespace accumlab::testing {

inline constexpr int64_t kEquivalenceSteps = 100;
/// Below the gradient norms of these runs, so clipping is active.
inline constexpr double kEquivalenceClipNorm = 0.05;

/// model, optimizer, clipping, precision.
using EquivalenceCase = std::tuple<std::string, OptimizerKind, bool, DType>;

inline ExperimentConfig equivalenceConfig(const EquivalenceCase& param, const std::string& device) {
  const auto& [model, opt, clip, dtype] = param;
  ExperimentConfig c;
  // 12x12 images keep the CNN fast; 3000 samples make the 100 windows cross epoch ends.
  c.data = model == "mlp" ? "blobs:64" : "blobs:1x12x12";
  c.synthetic_samples = 3000;
  c.model = model;
  c.micro_batch = 16;
  c.accum = 8;
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  c.optimizer.kind = opt;
  // float32 runs are only comparable while rounding differences (~1e-7) are not amplified
  // by the dynamics: an activation crossing a ReLU or max-pool kink in one arm only, or
  // Adam's per-parameter normalisation of gradients near rounding level, turns them into
  // jumps that then grow (measured on this CNN: Adam + clipping at lr 1e-3 reaches 5e-2
  // after 100 steps in float32, 1e-13 in float64). The LRs here train without such events:
  // the MLP with AdamW at 1e-3 had one at step 91 (1.6e-4 at step 100) once the big-batch
  // arm's noise probes, which split its batch in halves and so round differently, moved to
  // every 8th window; without noise statistics it ends 2e-6 apart, and at 5e-4 1.1e-6.
  const bool adam = opt != OptimizerKind::kSgd;
  c.optimizer.lr = model == "mlp" ? (adam ? 5e-4 : 0.05) : (adam ? 3e-4 : 0.01);
  c.optimizer.momentum = 0.9;
  c.optimizer.weight_decay = opt == OptimizerKind::kAdamW ? 0.05 : 0.0;
  c.optimizer.clip_norm = clip ? kEquivalenceClipNorm : 0.0;
  c.dtype = dtype;
  c.samples = kEquivalenceSteps * c.micro_batch * c.accum;
  c.eval_every = c.samples;
  c.grad_check_every = 1;  // every window's accumulated gradient against the big batch's
  c.device = device;
  return c;
}

/// accum's gradient equalled the big batch's at every window (at shared weights, to rounding
/// level, kinks excluded), and in float64 the two arms ended with equal weights and losses
/// step by step; with the weights moving (and, with clipping, clipping engaged).
///
/// In float32 the trajectories are compared only up to where they parted: where a rounding
/// difference tips an activation across a ReLU or max-pool kink in one arm only depends on
/// the CPU's float32 kernels (these LRs part nowhere on one CPU and after ~60 steps of the
/// CNN with Adam on another), and training then amplifies it. That is dynamics, not
/// accumulation, which the gradient check measures at every window.
inline void expectAccumEqualsBigBatch(const RunSummary& s, const RecordingSink& sink,
                                      const EquivalenceCase& param) {
  const auto& [model, opt, clip, dtype] = param;
  const ArmSummary& accum = armOf(s, ArmKind::kAccum);
  const ArmSummary& big = armOf(s, ArmKind::kBigBatch);
  ASSERT_EQ(accum.status, ArmStatus::kFinished) << accum.message;
  ASSERT_EQ(big.status, ArmStatus::kFinished) << big.message;
  ASSERT_EQ(accum.steps, kEquivalenceSteps);
  ASSERT_EQ(big.steps, kEquivalenceSteps);
  const bool f32 = dtype == DType::kFloat32;
  const double tol = f32 ? kFloat32Tolerance : kFloat64Tolerance;
  EXPECT_EQ(accum.grad_equivalence_checks, kEquivalenceSteps);
  EXPECT_LE(accum.grad_equivalence_rel_diff_without_kinks, tol);
  if (!f32) {
    EXPECT_LE(accum.equivalence_rel_diff, tol);
  } else if (accum.trajectories_parted_at_step < 0) {
    EXPECT_LE(accum.equivalence_rel_diff, tol);
  }
  const auto a = sink.of(ArmKind::kAccum), b = sink.of(ArmKind::kBigBatch);
  double max_norm = 0;
  for (const auto& r : a) max_norm = std::max(max_norm, r.grad_norm);
  EXPECT_GT(max_norm, 0.0);  // the weights moved
  if (clip) {
    EXPECT_GT(max_norm, kEquivalenceClipNorm) << "clipping never engaged";
  }
  // Window losses agree step by step too, while the trajectories are together.
  const size_t together = f32 && accum.trajectories_parted_at_step > 0
                              ? static_cast<size_t>(accum.trajectories_parted_at_step - 1)
                              : a.size();
  for (size_t i = 0; i < std::min(together, a.size()); ++i) {
    ASSERT_NEAR(a[i].loss, b[i].loss, dtype == DType::kFloat32 ? 1e-4 : 1e-10) << "step " << i;
  }
}

inline std::string equivalenceCaseName(const ::testing::TestParamInfo<EquivalenceCase>& info) {
  const auto& [model, opt, clip, dtype] = info.param;
  return model + "_" + toString(opt) + (clip ? "_clip_" : "_noclip_") + toString(dtype);
}

}  // namespace accumlab::testing
