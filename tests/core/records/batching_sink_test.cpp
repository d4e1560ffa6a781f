// SPDX-License-Identifier: GPL-3.0-or-later
// BatchingSink: each record lands in its field of the batch, and a run's start and an arm's
// end ask for an immediate hand-over (the store commits them at once).
#include <gtest/gtest.h>

#include <vector>

#include "accumlab/batching_sink.h"

namespace accumlab {
namespace {

class CollectingSink : public BatchingSink {
 public:
  RecordBatch batch;
  std::vector<bool> now;  ///< per append: urgent?

 protected:
  void append(const std::function<void(RecordBatch&)>& add, Urgency urgency) override {
    add(batch);
    now.push_back(urgency == Urgency::kNow);
  }
};

TEST(BatchingSink, PutsEachRecordInItsFieldAndHurriesOnlyStartsAndEnds) {
  CollectingSink sink;
  EXPECT_TRUE(sink.batch.empty());
  RunInfo info;
  info.train_samples = 123;
  sink.onRunStarted(info);
  StepRecord step;
  step.step = 7;
  sink.onStep(step);
  sink.onStep(step);
  EvalRecord eval;
  eval.loss = 0.5;
  sink.onEval(eval);
  EventRecord event;
  event.kind = EventKind::kAccum;
  sink.onEvent(event);
  ProbeRecord probe;
  probe.ratio = 8;
  sink.onProbe(probe);
  ArmSummary arm;
  arm.arm = ArmKind::kAccum;
  sink.onArmFinished(arm);
  RunSummary summary;
  summary.arms.push_back(arm);
  sink.onRunFinished(summary);

  const RecordBatch& b = sink.batch;
  ASSERT_TRUE(b.started.has_value());
  EXPECT_EQ(b.started->train_samples, 123);
  ASSERT_EQ(b.steps.size(), 2u);
  EXPECT_EQ(b.steps[1].step, 7);
  ASSERT_EQ(b.evals.size(), 1u);
  EXPECT_EQ(b.evals[0].loss, 0.5);
  ASSERT_EQ(b.events.size(), 1u);
  EXPECT_EQ(b.events[0].kind, EventKind::kAccum);
  ASSERT_EQ(b.probes.size(), 1u);
  EXPECT_EQ(b.probes[0].ratio, 8);
  ASSERT_EQ(b.arm_summaries.size(), 1u);
  EXPECT_EQ(b.arm_summaries[0].arm, ArmKind::kAccum);
  ASSERT_TRUE(b.finished.has_value());
  EXPECT_EQ(b.finished->arms.size(), 1u);
  EXPECT_FALSE(b.empty());
  // start, step, step, eval, event, probe, arm end, run end
  EXPECT_EQ(sink.now, (std::vector<bool>{true, false, false, false, false, false, true, true}));
}

}  // namespace
}  // namespace accumlab
