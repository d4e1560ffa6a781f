// SPDX-License-Identifier: GPL-3.0-or-later
// Arms stay paired through every change: mid-run m/K changes land at one sample position for
// all arms, uneven windows stay exact, and the window policies give the step counts they
// promise (docs/accumulation.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <regex>
#include <set>

#include "accumlab/input_error.h"
#include "accumlab/trainer.h"
#include "recording_sink.h"
#include "tolerances.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::kFloat32Tolerance;
using testing::kFloat64Tolerance;
using testing::RecordingSink;

// 933 = 14 windows of 64 + 37 (16 + 16 + 5): an epoch end that cuts a window unevenly.
constexpr int64_t kUnevenTrainSamples = 933;

ExperimentConfig pairingConfig(DType dtype) {
  ExperimentConfig c;
  c.data = "blobs:64";
  c.synthetic_samples = 3000;
  c.model = "mlp:32";
  c.micro_batch = 8;
  c.accum = 4;
  c.optimizer.lr = 0.05;
  c.dtype = dtype;
  c.samples = 8000;
  c.eval_every = c.samples;
  c.device = "cpu";
  return c;
}

ExperimentConfig unevenConfig(WindowPolicy policy) {
  ExperimentConfig c;
  c.data = "blobs:64";
  c.synthetic_samples = kUnevenTrainSamples;
  c.val_fraction = 0;
  c.model = "mlp:32";
  c.micro_batch = 16;
  c.accum = 4;
  c.optimizer.lr = 0.05;
  c.window_policy = policy;
  c.epochs = 2;
  c.device = "cpu";
  return c;
}

/// The first sample of a record's window.
int64_t windowStart(const StepRecord& r) { return r.samples_seen - r.window_samples; }

/// A size change read back from its events ("micro-batch 8 → 16 for all arms at sample 96 …",
/// "K 4 → 2 for all arms at sample 96 …"); events at one position make one change.
struct Change {
  int64_t at = 0;
  int64_t m = 0;  ///< 0 when unchanged
  int64_t k = 0;
};

std::vector<Change> changesOf(const RecordingSink& sink) {
  static const std::regex m_re("micro-batch \\d+ → (\\d+)");
  static const std::regex k_re("K \\d+ → (\\d+)");
  std::vector<Change> out;
  for (const auto& e : sink.events) {
    if (!isBatchChange(e.kind)) continue;
    Change c;
    c.at = e.samples_seen;
    std::smatch match;
    if (std::regex_search(e.message, match, m_re)) c.m = std::stoll(match[1].str());
    if (std::regex_search(e.message, match, k_re)) c.k = std::stoll(match[1].str());
    EXPECT_NE(e.message.find("for all arms at sample " + std::to_string(e.samples_seen)),
              std::string::npos)
        << e.message;
    EXPECT_NE(e.message.find("optimizer state kept"), std::string::npos) << e.message;
    if (!out.empty() && out.back().at == c.at) {
      if (c.m) out.back().m = c.m;
      if (c.k) out.back().k = c.k;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

class ArmsStayPaired : public ::testing::TestWithParam<DType> {};

TEST_P(ArmsStayPaired, ThroughFiveRandomChangesOfMAndK) {
  const ExperimentConfig c = pairingConfig(GetParam());
  Trainer trainer(c);
  RecordingSink sink;
  // Requests arrive at random moments: after random no-accum steps, i.e. in the middle of
  // accum's and big-batch's windows.
  std::mt19937 rng(2024);
  std::set<int64_t> moments;
  while (moments.size() < 5) moments.insert(std::uniform_int_distribution<int64_t>(5, 700)(rng));
  sink.on_step = [&](const StepRecord& r) {
    if (r.arm != ArmKind::kNoAccum || !moments.count(r.step)) return;
    const int what = std::uniform_int_distribution<int>(0, 2)(rng);
    if (what != 1) trainer.requestMicroBatch(std::uniform_int_distribution<int64_t>(2, 16)(rng));
    if (what != 0) trainer.requestAccum(std::uniform_int_distribution<int64_t>(1, 8)(rng));
  };
  const RunSummary s = trainer.run(sink);

  const auto accum = sink.of(ArmKind::kAccum), big = sink.of(ArmKind::kBigBatch);
  ASSERT_EQ(accum.size(), big.size());
  for (size_t i = 0; i < accum.size(); ++i) {
    ASSERT_EQ(accum[i].step, big[i].step) << "record " << i;
    ASSERT_EQ(accum[i].samples_seen, big[i].samples_seen) << "step " << accum[i].step;
    ASSERT_EQ(accum[i].window_samples, big[i].window_samples) << "step " << accum[i].step;
  }
  const std::vector<Change> changes = changesOf(sink);
  ASSERT_GE(changes.size(), 3u) << "too few changes landed to test anything";
  // Every change lands on a window boundary of every arm, and from there every arm trains
  // with the new sizes.
  int64_t m = c.micro_batch, k = c.accum;
  for (const Change& change : changes) {
    m = change.m ? change.m : m;
    k = change.k ? change.k : k;
    for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch}) {
      const auto records = sink.of(arm);
      const auto first = std::find_if(records.begin(), records.end(), [&](const StepRecord& r) {
        return windowStart(r) >= change.at;
      });
      if (first == records.end()) continue;  // the change landed at the end of the budget
      EXPECT_EQ(windowStart(*first), change.at) << toString(arm) << " missed the boundary";
      EXPECT_EQ(first->micro_batch, armMicroBatch(arm, m, k)) << toString(arm);
      EXPECT_EQ(first->window_samples,
                std::min(armMicroBatch(arm, m, k) * armAccum(arm, m, k), c.samples - change.at))
          << toString(arm) << " at " << change.at;
    }
  }
  // The equivalence figure kept updating to the very last step, and stayed at rounding level.
  ASSERT_FALSE(big.empty());
  EXPECT_TRUE(std::isfinite(big.back().weight_rel_diff));
  const double tol = GetParam() == DType::kFloat32 ? kFloat32Tolerance : kFloat64Tolerance;
  EXPECT_LE(armOf(s, ArmKind::kAccum).equivalence_rel_diff, tol);
  EXPECT_EQ(armOf(s, ArmKind::kAccum).equivalence_rel_diff, big.back().weight_rel_diff);
  ::testing::Test::RecordProperty("changes", static_cast<int>(changes.size()));
  char diff[32];
  std::snprintf(diff, sizeof diff, "%.3e", armOf(s, ArmKind::kAccum).equivalence_rel_diff);
  ::testing::Test::RecordProperty("accum_big_batch_rel_diff", diff);
  for (const auto& arm : s.arms) EXPECT_EQ(arm.samples_seen, c.samples) << toString(arm.arm);
}

INSTANTIATE_TEST_SUITE_P(Engine, ArmsStayPaired,
                         ::testing::Values(DType::kFloat32, DType::kFloat64),
                         [](const auto& info) { return toString(info.param); });

TEST(ArmsStayPaired, RequestsDuringAPendingChangeWaitForIt) {
  ExperimentConfig c = pairingConfig(DType::kFloat64);
  c.samples = 2000;
  Trainer trainer(c);
  RecordingSink sink;
  sink.on_step = [&](const StepRecord& r) {
    if (r.arm == ArmKind::kNoAccum && r.step == 3) {
      trainer.requestAccum(2);
    }
    if (r.arm == ArmKind::kNoAccum && r.step == 4) trainer.requestAccum(8);
  };
  trainer.run(sink);
  const std::vector<Change> changes = changesOf(sink);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_LT(changes[0].at, changes[1].at);
  EXPECT_EQ(changes[1].k, 8);
  EXPECT_EQ(sink.of(ArmKind::kBigBatch).back().micro_batch, 8 * 8);
}

TEST(WindowPolicies, UnevenEpochEndStaysExactUnderFlushExact) {
  ExperimentConfig c = unevenConfig(WindowPolicy::kFlushExact);
  c.dtype = DType::kFloat64;
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  RecordingSink sink;
  const RunSummary s = Trainer(c).run(sink);
  bool uneven = false;
  for (const auto& r : sink.of(ArmKind::kAccum)) uneven |= r.window_samples == 37 && r.accum == 3;
  EXPECT_TRUE(uneven) << "no 16 + 16 + 5 window at the epoch end";
  EXPECT_LE(armOf(s, ArmKind::kAccum).equivalence_rel_diff, kFloat64Tolerance);
}

TEST(WindowPolicies, FlushDivideByKVisiblyBreaksEquivalence) {
  // The Lightning/Accelerate behaviour: the short window is divided by K, not by its size.
  ExperimentConfig c = unevenConfig(WindowPolicy::kFlushDivideByK);
  c.dtype = DType::kFloat64;
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  RecordingSink sink;
  const RunSummary s = Trainer(c).run(sink);
  EXPECT_GT(armOf(s, ArmKind::kAccum).equivalence_rel_diff, 1e-4);
}

TEST(WindowPolicies, StepCountsThroughTheTrainer) {
  // 933 samples, 2 epochs, m = 16, K = 4: accum / big-batch / no-accum updates.
  struct Expected {
    WindowPolicy policy;
    int64_t accum, big, no_accum;
  };
  for (const Expected& e : {Expected{WindowPolicy::kStream, 30, 30, 117},
                            Expected{WindowPolicy::kFlushExact, 30, 30, 118},
                            Expected{WindowPolicy::kFlushDivideByK, 30, 30, 118},
                            Expected{WindowPolicy::kDrop, 28, 28, 116}}) {
    RecordingSink sink;
    const RunSummary s = Trainer(unevenConfig(e.policy)).run(sink);
    EXPECT_EQ(armOf(s, ArmKind::kAccum).steps, e.accum) << toString(e.policy);
    EXPECT_EQ(armOf(s, ArmKind::kBigBatch).steps, e.big) << toString(e.policy);
    EXPECT_EQ(armOf(s, ArmKind::kNoAccum).steps, e.no_accum) << toString(e.policy);
    for (const auto& arm : s.arms) EXPECT_EQ(arm.samples_seen, 2 * kUnevenTrainSamples);
  }
}

TEST(WindowPolicies, DropWithFewerSamplesThanOneWindowIsBadInput) {
  ExperimentConfig c = unevenConfig(WindowPolicy::kDrop);
  c.synthetic_samples = 50;
  RecordingSink sink;
  try {
    Trainer(c).run(sink);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("m·K = 64 (m = 16, K = 4)"), std::string::npos) << what;
    EXPECT_NE(what.find("50 training samples"), std::string::npos) << what;
  }
  EXPECT_TRUE(sink.steps.empty());
}

}  // namespace
}  // namespace accumlab
