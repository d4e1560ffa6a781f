// SPDX-License-Identifier: GPL-3.0-or-later
// An arm's summary as JSON (core/store/summary_json.cpp): every field both ways, the memory
// fields' "not measured", and summaries stored before a field existed.
#include "store/summary_json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace accumlab {
namespace {

TEST(SummaryJson, PeakTensorBytesRoundTripsAndIsNullWhenNotMeasured) {
  ArmSummary a;
  a.arm = ArmKind::kBigBatch;
  a.peak_memory_bytes = 360 << 20;
  a.peak_tensor_bytes = (int64_t{5} << 30) + 7;  // above 32 bits
  const nlohmann::json j = store::armSummaryToJson(a);
  EXPECT_EQ(j["peak_tensor_bytes"].get<int64_t>(), a.peak_tensor_bytes);
  EXPECT_EQ(j["peak_memory_bytes"].get<int64_t>(), a.peak_memory_bytes);
  const ArmSummary back = store::armSummaryFromJson(j);
  EXPECT_EQ(back.peak_tensor_bytes, a.peak_tensor_bytes);
  EXPECT_EQ(back.peak_memory_bytes, a.peak_memory_bytes);

  a.peak_tensor_bytes = -1;
  const nlohmann::json unmeasured = store::armSummaryToJson(a);
  EXPECT_TRUE(unmeasured["peak_tensor_bytes"].is_null());
  EXPECT_EQ(store::armSummaryFromJson(unmeasured).peak_tensor_bytes, -1);
  nlohmann::json old = unmeasured;
  old.erase("peak_tensor_bytes");  // a summary stored before the field existed
  EXPECT_EQ(store::armSummaryFromJson(old).peak_tensor_bytes, -1);
}

TEST(SummaryJson, EveryFieldRoundTripsAndIsWrittenOnce) {
  ArmSummary a;
  a.arm = ArmKind::kAccum;
  a.status = ArmStatus::kDiverged;
  a.message = "diverged at step 9";
  a.weights_digest = "abc123";
  a.ceiling_op = "GEMM 32×784 by 784×256";
  // Distinct values, none a default, so a field read into another member shows.
  int64_t n = 11;
  for (int64_t* v :
       {&a.micro_batch, &a.accum, &a.memory_piece, &a.steps, &a.samples_seen,
        &a.loss_variance_count, &a.peak_memory_bytes, &a.peak_tensor_bytes,
        &a.trajectories_parted_at_step, &a.grad_equivalence_checks, &a.grad_equivalence_kinks,
        &a.diverged_at_step, &a.grad_equivalence_uneven_checks}) {
    *v = n++;
  }
  double x = 0.5;
  for (double* v : {&a.final_train_loss,
                    &a.val_loss,
                    &a.val_accuracy,
                    &a.loss_variance,
                    &a.loss_variance_detrended,
                    &a.noise_per_update,
                    &a.b_simple,
                    &a.samples_per_s,
                    &a.tokens_per_s,
                    &a.flops_per_sample,
                    &a.gflop_per_s,
                    &a.ceiling_gflop_per_s,
                    &a.equivalence_rel_diff,
                    &a.grad_equivalence_rel_diff,
                    &a.grad_equivalence_largest_kink,
                    &a.grad_equivalence_rel_diff_without_kinks,
                    &a.wall_s,
                    &a.allreduce_s,
                    &a.grad_equivalence_mean_full,
                    &a.grad_equivalence_largest_uneven,
                    &a.grad_equivalence_first,
                    &a.grad_equivalence_last}) {
    *v = (x += 0.25);
  }
  a.batch_dependent = true;
  a.stochastic = true;
  const nlohmann::json j = store::armSummaryToJson(a);
  EXPECT_EQ(j.size(), 5u + 13u + 22u + 2u) << j.dump();
  const ArmSummary b = store::armSummaryFromJson(j);
  EXPECT_EQ(store::armSummaryToJson(b), j);
  EXPECT_EQ(b.message, a.message);
  EXPECT_EQ(b.status, a.status);
  EXPECT_EQ(b.diverged_at_step, a.diverged_at_step);
  EXPECT_EQ(b.allreduce_s, a.allreduce_s);
  EXPECT_TRUE(b.stochastic);
  EXPECT_EQ(b.ceiling_gflop_per_s, a.ceiling_gflop_per_s);
  EXPECT_EQ(b.ceiling_op, a.ceiling_op);

  // A summary stored before the kinks were told apart: every check counted.
  nlohmann::json old = j;
  old.erase("grad_equivalence_rel_diff_without_kinks");
  EXPECT_EQ(store::armSummaryFromJson(old).grad_equivalence_rel_diff_without_kinks,
            a.grad_equivalence_rel_diff);
  old.erase("wall_s");
  old["val_loss"] = nullptr;  // NaN as stored
  const ArmSummary o = store::armSummaryFromJson(old);
  EXPECT_EQ(o.wall_s, 0.0);
  EXPECT_TRUE(std::isnan(o.val_loss));
}

TEST(SummaryJson, ASummaryStoredBeforeTheCeilingHasNone) {
  ArmSummary a;
  a.flops_per_sample = 1e6;
  a.gflop_per_s = 30.0;
  a.ceiling_gflop_per_s = 50.0;
  a.ceiling_op = "GEMM 32×784 by 784×256";
  nlohmann::json old = store::armSummaryToJson(a);
  EXPECT_EQ(old["ceiling_gflop_per_s"].get<double>(), 50.0);
  old.erase("ceiling_gflop_per_s");  // stored before the field existed
  old.erase("ceiling_op");
  const ArmSummary o = store::armSummaryFromJson(old);
  EXPECT_TRUE(std::isnan(o.ceiling_gflop_per_s));
  EXPECT_TRUE(o.ceiling_op.empty());
  EXPECT_EQ(o.gflop_per_s, 30.0);
}

}  // namespace
}  // namespace accumlab
