// SPDX-License-Identifier: GPL-3.0-or-later
// A sweep's events and their one JSON line (core/sweeps/sweep_event.cpp): what the CLI writes
// is what every reader reads back, and anything else in the stream is no event.
#include "accumlab/sweep_event.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace accumlab {
namespace {

TEST(SweepEvent, EveryEventReadsBackFromItsLine) {
  SweepEvent started;
  started.kind = SweepEvent::Kind::kSweepStarted;
  started.sweep = 4;
  started.points = 6;
  started.jobs = 2;
  started.target.value = 0.35;
  started.target.smoothing = 0.8;
  started.db = "runs.sqlite";
  const std::optional<SweepEvent> s = parseSweepEvent(sweepEventToJson(started));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, SweepEvent::Kind::kSweepStarted);
  EXPECT_EQ(s->sweep, 4);
  EXPECT_EQ(s->points, 6u);
  EXPECT_EQ(s->jobs, 2);
  EXPECT_DOUBLE_EQ(s->target.value, 0.35);
  EXPECT_DOUBLE_EQ(s->target.smoothing, 0.8);
  EXPECT_EQ(s->db, "runs.sqlite");

  SweepEvent finished;
  finished.kind = SweepEvent::Kind::kPointFinished;
  finished.sweep = 4;
  finished.point.index = 3;
  finished.point.micro_batch = 8;
  finished.point.accum = 4;
  finished.point.lr = 0.1;
  finished.point.run_id = 17;
  finished.point.status = SweepStatus::kReached;
  finished.point.steps_to_target = 12.5;
  finished.point.b_simple = 41.25;
  finished.point.message = "né";
  finished.done = 1;
  finished.total = 6;
  finished.seconds = 2.5;
  const std::string line = sweepEventToJson(finished);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["event"], "point_finished");  // the documented names (docs/cli.md)
  EXPECT_EQ(j["point"], 3);
  EXPECT_EQ(j["effective_batch"], 32);
  EXPECT_EQ(j["status"], "reached");
  const std::optional<SweepEvent> f = parseSweepEvent(line);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->point.index, 3);
  EXPECT_EQ(f->point.effectiveBatch(), 32);
  EXPECT_EQ(f->point.run_id, 17);
  EXPECT_EQ(f->point.status, SweepStatus::kReached);
  EXPECT_DOUBLE_EQ(f->point.steps_to_target, 12.5);
  EXPECT_DOUBLE_EQ(f->point.b_simple, 41.25);
  EXPECT_TRUE(std::isnan(f->point.samples_to_target));
  EXPECT_EQ(f->point.message, "né");
  EXPECT_EQ(f->done, 1u);
  EXPECT_EQ(f->total, 6u);
  EXPECT_DOUBLE_EQ(f->seconds, 2.5);

  SweepEvent end;
  end.kind = SweepEvent::Kind::kSweepFinished;
  end.sweep = 4;
  end.done = 2;
  end.total = 6;
  end.stopped = true;
  const std::optional<SweepEvent> e = parseSweepEvent(sweepEventToJson(end));
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->stopped);
  EXPECT_FALSE(e->failed);
  EXPECT_EQ(e->done, 2u);

  SweepEvent error;
  error.message = "unknown dataset 'x'";
  const std::optional<SweepEvent> r = parseSweepEvent(sweepEventToJson(error));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, SweepEvent::Kind::kError);
  EXPECT_EQ(r->message, "unknown dataset 'x'");
}

TEST(SweepEvent, TextAndUnknownObjectsAreNoEvents) {
  for (const char* line :
       {"sweep 2: 2 points to train, 1 at once", "point 1/2  B=8: reached", "{not json}", "",
        "{\"event\": \"celebration\", \"sweep\": 99}", "[1, 2]",
        "{\"event\": \"point_finished\", \"sweep\": 4, \"point\": 2, \"status\": \"no-such\"}",
        "{\"event\":\"sweep_started\",\"sw"}) {
    EXPECT_FALSE(parseSweepEvent(line)) << line;
  }
}

TEST(SweepEvent, TheObserverTellsTheRunnersReportsInOrder) {
  std::vector<SweepEvent> told;
  SweepEventObserver observer([&](const SweepEvent& e) { told.push_back(e); }, "s.sqlite", 3);
  SweepPlan plan;
  plan.sweep_id = 9;
  plan.points.resize(2);
  observer.sweepStarted(plan);
  SweepPoint p;
  p.index = 1;
  p.status = SweepStatus::kRunning;
  observer.pointStarted(p);
  p.status = SweepStatus::kMissed;
  observer.pointFinished(p, 1, 2, 0.5);
  SweepOutcome outcome;
  outcome.done = 1;
  outcome.total = 2;
  outcome.failed = true;
  observer.sweepFinished(outcome);
  ASSERT_EQ(told.size(), 4u);
  EXPECT_EQ(told[0].kind, SweepEvent::Kind::kSweepStarted);
  EXPECT_EQ(told[0].jobs, 3);
  EXPECT_EQ(told[0].points, 2u);
  EXPECT_EQ(told[1].kind, SweepEvent::Kind::kPointStarted);
  EXPECT_EQ(told[1].point.index, 1);
  EXPECT_EQ(told[2].point.status, SweepStatus::kMissed);
  EXPECT_EQ(told[3].kind, SweepEvent::Kind::kSweepFinished);
  EXPECT_TRUE(told[3].failed);
  for (const SweepEvent& e : told) EXPECT_EQ(e.sweep, 9);
  EXPECT_EQ(told[3].db, "s.sqlite");
}

}  // namespace
}  // namespace accumlab
