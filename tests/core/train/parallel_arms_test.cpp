// SPDX-License-Identifier: GPL-3.0-or-later
// Arms trained at once on their own threads (config.arm_threads) give the same numbers, to
// the bit, as arms trained one after another on the sample clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "accumlab/trainer.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

using testing::armOf;

struct Trained {
  RunSummary summary;
  testing::RecordingSink sink;
};

/// A small run of blobs (m = 8, K = 4) whose arms train `arm_threads` at a time.
ExperimentConfig blobs(int64_t samples, int arm_threads) {
  ExperimentConfig c;
  c.data = "blobs";
  c.synthetic_samples = 2000;
  c.model = "mlp:32";
  c.micro_batch = 8;
  c.accum = 4;
  c.samples = samples;
  c.epochs = 0;
  c.threads = 1;
  c.arm_threads = arm_threads;
  return c;
}

Trained train(int arm_threads) {
  ExperimentConfig c = blobs(6000, arm_threads);
  c.arms = {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch, ArmKind::kPitfallSum};
  c.eval_every = 1000;
  c.grad_check_every = 5;
  c.probe_repeats = 20;
  c.probe_every = 2000;
  Trained t;
  Trainer trainer(c);
  t.summary = trainer.run(t.sink);
  return t;
}

TEST(ParallelArms, TrainTheSameNumbersAsOneAfterAnother) {
  const Trained one = train(1);
  const Trained two = train(2);
  ASSERT_EQ(one.summary.arms.size(), two.summary.arms.size());
  for (size_t i = 0; i < one.summary.arms.size(); ++i) {
    const ArmSummary& a = one.summary.arms[i];
    const ArmSummary& b = two.summary.arms[i];
    EXPECT_EQ(a.weights_digest, b.weights_digest) << toString(a.arm);
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_EQ(a.final_train_loss, b.final_train_loss) << toString(a.arm);
    EXPECT_EQ(a.val_loss, b.val_loss) << toString(a.arm);
    EXPECT_EQ(a.grad_equivalence_checks, b.grad_equivalence_checks);
    // accum and big-batch are paired after every window, in both ways of training.
    EXPECT_TRUE(a.equivalence_rel_diff == b.equivalence_rel_diff ||
                (std::isnan(a.equivalence_rel_diff) && std::isnan(b.equivalence_rel_diff)))
        << toString(a.arm);
    const auto sa = one.sink.of(a.arm), sb = two.sink.of(a.arm);
    ASSERT_EQ(sa.size(), sb.size());
    for (size_t s = 0; s < sa.size(); ++s) {
      EXPECT_EQ(sa[s].loss, sb[s].loss);
      EXPECT_EQ(sa[s].grad_norm, sb[s].grad_norm);
    }
  }
  // The sink hears the same records in the same order, big-batch's paired with accum's
  // after every step, although a round trains many windows of each arm before telling.
  ASSERT_EQ(one.sink.steps.size(), two.sink.steps.size());
  int64_t paired = 0;
  for (size_t s = 0; s < one.sink.steps.size(); ++s) {
    const StepRecord& a = one.sink.steps[s];
    const StepRecord& b = two.sink.steps[s];
    ASSERT_EQ(a.arm, b.arm) << "record " << s;
    ASSERT_EQ(a.samples_seen, b.samples_seen) << "record " << s;
    if (a.arm != ArmKind::kBigBatch) continue;
    ASSERT_FALSE(std::isnan(b.weight_rel_diff)) << "big-batch step " << b.step << " unpaired";
    EXPECT_EQ(a.weight_rel_diff, b.weight_rel_diff) << "big-batch step " << b.step;
    ++paired;
  }
  EXPECT_EQ(paired, armOf(two.summary, ArmKind::kBigBatch).steps);
  ASSERT_EQ(one.sink.events.size(), two.sink.events.size());
  for (size_t e = 0; e < one.sink.events.size(); ++e) {
    EXPECT_EQ(one.sink.events[e].message, two.sink.events[e].message);
  }
  ASSERT_EQ(one.sink.probes.size(), two.sink.probes.size());
  ASSERT_FALSE(one.sink.probes.empty());
  EXPECT_EQ(one.sink.probes.back().ratio, two.sink.probes.back().ratio);
  EXPECT_EQ(one.sink.evals.size(), two.sink.evals.size());
}

TEST(ParallelArms, AChangeAskedForMidRoundLandsForEveryArmAtOneSample) {
  Trainer trainer(blobs(8000, 2));
  testing::RecordingSink sink;
  bool asked = false;
  sink.on_step = [&](const StepRecord& r) {
    if (!asked && r.arm == ArmKind::kAccum && r.samples_seen >= 2000) {
      trainer.requestAccum(2);
      asked = true;
    }
  };
  const RunSummary summary = trainer.run(sink);
  ASSERT_TRUE(asked);
  int64_t at = -1;
  for (const EventRecord& e : sink.events) {
    if (e.kind == EventKind::kAccum) at = e.samples_seen;
  }
  ASSERT_GT(at, 0);
  for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch}) {
    // Every arm ended a window at the change, and the accumulating ones' next window is
    // m·K = 8·2 (or shorter, at an epoch's end).
    const auto records = sink.of(arm);
    const auto ends = std::find_if(records.begin(), records.end(),
                                   [&](const StepRecord& r) { return r.samples_seen == at; });
    ASSERT_NE(ends, records.end()) << toString(arm) << " has no window ending at " << at;
    ASSERT_NE(ends + 1, records.end());
    if (arm != ArmKind::kNoAccum) {
      EXPECT_LE((ends + 1)->micro_batch * (ends + 1)->accum, 16) << toString(arm);
    }
  }
  // Still paired after the change, to rounding.
  for (const StepRecord& r : sink.of(ArmKind::kBigBatch)) {
    ASSERT_FALSE(std::isnan(r.weight_rel_diff)) << r.samples_seen;
  }
  EXPECT_EQ(armOf(summary, ArmKind::kAccum).steps, armOf(summary, ArmKind::kBigBatch).steps);
}

TEST(ParallelArms, APauseMidRunHoldsEveryArmAndChangesNoNumber) {
  testing::RecordingSink straight_sink;
  const RunSummary straight = Trainer(blobs(8000, 2)).run(straight_sink);

  Trainer trainer(blobs(8000, 2));
  testing::RecordingSink sink;
  std::thread resumer;
  sink.on_step = [&](const StepRecord& r) {
    // Told on the run's thread after a round; the run pauses before its next round.
    if (!resumer.joinable() && r.samples_seen >= 2000) {
      trainer.requestPause();
      resumer = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        trainer.requestResume();
      });
    }
  };
  const RunSummary paused = trainer.run(sink);
  ASSERT_TRUE(resumer.joinable());
  resumer.join();
  const auto has = [&](EventKind kind) {
    return std::any_of(sink.events.begin(), sink.events.end(),
                       [&](const EventRecord& e) { return e.kind == kind; });
  };
  EXPECT_TRUE(has(EventKind::kPause));
  EXPECT_TRUE(has(EventKind::kResume));
  ASSERT_EQ(paused.arms.size(), straight.arms.size());
  for (size_t i = 0; i < paused.arms.size(); ++i) {
    EXPECT_EQ(paused.arms[i].weights_digest, straight.arms[i].weights_digest)
        << toString(paused.arms[i].arm);
    EXPECT_EQ(paused.arms[i].status, ArmStatus::kFinished);
  }
  EXPECT_EQ(sink.steps.size(), straight_sink.steps.size());
}

}  // namespace
}  // namespace accumlab
