// SPDX-License-Identifier: GPL-3.0-or-later
// One attempt at a lesson as the CLI and the app drive it (core/lessons/lesson_session.cpp):
// what is refused before anything trains, the sweep points as jobs end, the stored attempt.
#include "accumlab/lesson_session.h"

#include <gtest/gtest.h>

#include "../store/store_fixture.h"
#include "accumlab/input_error.h"
#include "accumlab/lesson_store.h"
#include "accumlab/sweep_store.h"

namespace accumlab {
namespace {

using LessonSessionTest = testing::StoreTest;

const char* kSweepLesson = R"({
  "title": "Where the big batch stops paying", "text": "x", "config": {"optimizer": {"lr": 0.05}},
  "sweep": {"effective_batches": [4, 8, 32], "micro_batch": 8,
            "target": {"kind": "loss", "value": 0.4, "smoothing": 0}},
  "prediction": {"question": "q?", "kind": "number", "tolerance": {"factor": 2},
                 "against": "c"},
  "checks": [{"id": "c", "name": "n", "measure": {"metric": "sweep_b_simple"},
              "compare": "at_least", "theory": 1, "holds": "h", "fails": "f"}]})";

/// A job's run that reached the loss target at step 13, with a B_simple of 50 samples;
/// stored in `db` through a StoreSink, as a front end stores it, unless `db` is empty.
LessonRunResult reached(const LessonJob& job, const std::string& db) {
  LessonRunResult r;
  r.id = job.id;
  r.summary.info = testing::makeInfo({ArmKind::kAccum});
  r.summary.info.config = job.config;
  ArmSummary arm;
  arm.arm = ArmKind::kAccum;
  arm.status = ArmStatus::kFinished;
  arm.steps = 20;
  arm.samples_seen = 20 * job.config.micro_batch * job.config.accum;
  arm.b_simple = 50;
  r.summary.arms = {arm};
  for (int64_t s = 1; s <= 20; ++s) {
    StepRecord step;
    step.arm = ArmKind::kAccum;
    step.step = s;
    step.samples_seen = s * job.config.micro_batch * job.config.accum;
    step.loss = 1.0 / static_cast<double>(s) * 5;  // below 0.4 from step 13 on
    step.b_simple = 50;
    r.steps.push_back(step);
  }
  if (!db.empty()) {
    StoreSink sink(db);
    sink.onRunStarted(r.summary.info);
    for (const StepRecord& step : r.steps) sink.onStep(step);
    sink.onRunFinished(r.summary);
    sink.finish();
    for (const StoredRun& run : sink.runs()) r.stored_run_ids.push_back(run.run_id);
  }
  return r;
}

TEST_F(LessonSessionTest, StoresTheSweepPointsAsTheyEndAndTheAttemptWithItsVerdict) {
  RunStore store(db_);
  LessonSession session(lessonFromJson(kSweepLesson, "s.json"), "12", &store);
  ASSERT_EQ(session.jobs().size(), 3u);
  ASSERT_GT(session.sweepId(), 0);
  EXPECT_EQ(SweepStore(store).get(session.sweepId()).points.size(), 3u);
  std::vector<int64_t> stored;
  while (!session.done()) {
    const LessonJob& job = session.jobs()[session.next()];
    LessonRunResult result = reached(job, db_);
    ASSERT_EQ(result.stored_run_ids.size(), 1u);
    stored.push_back(result.stored_run_ids.front());
    session.jobFinished(std::move(result), false);
    // The point of the job that just ended is stored, with its run.
    // A copy: sweep() returns its SweepDetail by value, a reference would dangle.
    const SweepPoint point = SweepStore(store).get(session.sweepId()).points[session.next() - 1];
    EXPECT_EQ(point.status, SweepStatus::kReached) << toString(point.status);
    EXPECT_EQ(point.run_id, stored.back());
  }
  EXPECT_THROW(session.jobFinished(LessonRunResult{}, false), std::logic_error);
  EXPECT_FALSE(session.verdict().has_value());  // no verdict before finish()
  const LessonVerdict& verdict = session.finish();
  ASSERT_TRUE(session.verdict().has_value());
  EXPECT_EQ(&*session.verdict(), &verdict);  // what the app's Lessons tab shows
  EXPECT_TRUE(verdict.allHold());
  ASSERT_GT(session.resultId(), 0);
  EXPECT_EQ(session.runIds(), stored);
  const LessonResultRow row = LessonStore(store).get(session.resultId());
  EXPECT_EQ(row.run_ids, session.runIds());
  EXPECT_EQ(row.prediction, "12");
  EXPECT_EQ(row.title, "Where the big batch stops paying");
  EXPECT_EQ(&session.finish(), &verdict);  // once: a second call stores nothing more
  EXPECT_EQ(LessonStore(store).list().size(), 1u);
}

TEST_F(LessonSessionTest, RefusesABadPredictionOrTheStoreAsDataBeforeAnythingIsStored) {
  RunStore store(db_);
  EXPECT_THROW(LessonSession(lessonFromJson(kSweepLesson, "s.json"), "twelve", &store), InputError);
  std::string reads_store = kSweepLesson;
  reads_store.replace(reads_store.find("\"config\": {"), 11,
                      "\"config\": {\"data\": \"csv:" + db_ + "\", ");
  EXPECT_THROW(LessonSession(lessonFromJson(reads_store, "s.json"), "", &store), InputError);
  EXPECT_TRUE(SweepStore(store).list().empty());
  // Without a store nothing is kept, and the verdict is the same.
  LessonSession unstored(lessonFromJson(kSweepLesson, "s.json"), "", nullptr);
  while (!unstored.done())
    unstored.jobFinished(reached(unstored.jobs()[unstored.next()], ""), false);
  EXPECT_TRUE(unstored.finish().allHold());
  EXPECT_EQ(unstored.resultId(), 0);
  EXPECT_EQ(unstored.sweepId(), 0);
}

}  // namespace
}  // namespace accumlab
