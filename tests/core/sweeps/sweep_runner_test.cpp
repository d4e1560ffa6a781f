// SPDX-License-Identifier: GPL-3.0-or-later
// SweepRunner (core/sweeps/sweep_runner.cpp) with a shell script in place of accumlab-cli:
// the points' outcomes, the jobs limit, a bad input and a stop request that end the sweep.
#include "accumlab/sweep_runner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "../store/store_fixture.h"
#include "accumlab/input_error.h"
#include "accumlab/sweep_job.h"
#include "accumlab/sweep_store.h"

namespace accumlab {
namespace {

/// Records the runner's events as short strings; may ask for a stop when a point starts.
class Events : public SweepObserver {
 public:
  void sweepStarted(const SweepPlan& plan) override {
    seen.push_back("started " + std::to_string(plan.points.size()));
  }
  void pointStarted(const SweepPoint& p) override {
    EXPECT_EQ(p.status, SweepStatus::kRunning);
    seen.push_back("point " + std::to_string(p.index));
    if (stop_on_start && runner) runner->requestStop();
  }
  void pointFinished(const SweepPoint& p, size_t done, size_t total, double seconds) override {
    seen.push_back("done " + std::to_string(p.index) + " " + toString(p.status) + " " +
                   std::to_string(done) + "/" + std::to_string(total));
    EXPECT_GE(seconds, 0.0);
  }
  void sweepFinished(const SweepOutcome& o) override {
    finished = true;
    outcome = o;
  }

  std::vector<std::string> seen;
  bool finished = false;
  SweepOutcome outcome;
  bool stop_on_start = false;
  SweepRunner* runner = nullptr;
};

class SweepRunnerTest : public testing::StoreTest {
 protected:
  /// A stand-in for accumlab-cli: `case` branches on the point's name ("point-0"…), taken
  /// from its job file's name; `outcome RUN_ID BAD_INPUT ERROR` writes its outcome file, and
  /// each job file is kept as jobs/point-N.job.json.
  std::string fake(const std::string& cases) {
    const std::string path = dir_ + "/fake-cli";
    std::ofstream(path) << "#!/bin/sh\n"
                        << "[ \"$1 $3\" = \"sweep-point --outcome\" ] || exit 99\n"
                        << "point=$(basename \"$2\" .job.json)\n"
                        << "mkdir -p " << dir_ << "/jobs; cp \"$2\" " << dir_ << "/jobs/\n"
                        << "outcome() { printf '{\"format\": \"accumlab-sweep-outcome\", "
                           "\"version\": 1, \"run_id\": %s, \"bad_input\": %s, \"error\": "
                           "\"%s\"}' \"$1\" \"$2\" \"$3\" > \"$4\"; }\n"
                        << "case $point in\n"
                        << cases << "\nesac\n";
    ::chmod(path.c_str(), 0700);
    return path;
  }

  /// A sweep of `n` points stored in db_, towards a smoothed loss of 0.4.
  SweepPlan plan(RunStore& store, int n) {
    ExperimentConfig base;
    base.name = "unit";
    base.arms = {ArmKind::kAccum};
    SweepTarget target;
    target.value = 0.4;
    target.smoothing = 0;
    std::vector<SweepPoint> points;
    for (int i = 0; i < n; ++i) {
      SweepPoint p;
      p.index = i;
      p.micro_batch = 8;
      p.accum = int64_t{1} << i;
      p.lr = 0.05;
      points.push_back(p);
    }
    return createSweep(store, base, target, 1, points);
  }

  SweepRunnerOptions options(const std::string& program, int jobs) const {
    SweepRunnerOptions o;
    o.program = program;
    o.store_path = db_;
    o.jobs = jobs;
    return o;
  }

  /// A stored accum run whose loss 5/s falls below 0.4 at step 13; returns its id.
  int64_t storeReachedRun() {
    RunInfo info = testing::makeInfo({ArmKind::kAccum});
    RunSummary summary;
    summary.info = info;
    ArmSummary arm;
    arm.arm = ArmKind::kAccum;
    arm.status = ArmStatus::kFinished;
    arm.steps = 20;
    arm.samples_seen = 20 * 8;
    summary.arms = {arm};
    StoreSink sink(db_);
    sink.onRunStarted(info);
    for (int64_t s = 1; s <= 20; ++s) {
      StepRecord step;
      step.arm = ArmKind::kAccum;
      step.step = s;
      step.samples_seen = s * 8;
      step.loss = 5.0 / static_cast<double>(s);
      sink.onStep(step);
    }
    sink.onRunFinished(summary);
    sink.finish();
    return sink.runs().front().run_id;
  }
};

TEST_F(SweepRunnerTest, StoresEachPointsOutcomeFromItsRunOrItsError) {
  const int64_t run_id = storeReachedRun();
  RunStore store(db_);
  const std::string program = fake("point-0) outcome " + std::to_string(run_id) +
                                   " false '' \"$4\";;\n"
                                   "point-1) outcome null false 'out of memory' \"$4\"; exit 1;;\n"
                                   "point-2) echo 'accumlab-cli: bad luck' >&2; exit 1;;\n"
                                   "point-3) kill -KILL $$;;");
  SweepRunner runner(plan(store, 4), options(program, 2));
  Events events;
  const SweepOutcome outcome = runner.run(events);
  EXPECT_EQ(outcome.done, 4u);
  EXPECT_EQ(outcome.total, 4u);
  EXPECT_FALSE(outcome.stopped);
  EXPECT_TRUE(outcome.failed);
  EXPECT_TRUE(events.finished);
  ASSERT_EQ(events.seen.size(), 1u + 4 + 4);
  EXPECT_EQ(events.seen.front(), "started 4");
  const std::vector<SweepPoint> points = SweepStore(store).get(runner.plan().sweep_id).points;
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].status, SweepStatus::kReached) << toString(points[0].status);
  EXPECT_EQ(points[0].run_id, run_id);
  EXPECT_NEAR(points[0].steps_to_target, 12.5, 0.5);  // 5/s crosses 0.4 at s = 12.5
  EXPECT_EQ(points[1].status, SweepStatus::kFailed);
  EXPECT_EQ(points[1].message, "out of memory");
  EXPECT_EQ(points[2].status, SweepStatus::kFailed);
  EXPECT_EQ(points[2].message, "bad luck");
  EXPECT_EQ(points[3].status, SweepStatus::kFailed);
  EXPECT_EQ(points[3].message, "the worker was killed by signal 9");
  // Each worker got its point as a typed job: the whole config, named, with the target.
  const SweepJob job = readSweepJob(dir_ + "/jobs/point-2.job.json");
  EXPECT_EQ(job.sweep_id, runner.plan().sweep_id);
  EXPECT_EQ(job.point.index, 2);
  EXPECT_EQ(job.config.micro_batch, 8);
  EXPECT_EQ(job.config.accum, 4);
  EXPECT_EQ(job.config.name, "unit · B=32 (8×4) lr=0.05");
  EXPECT_DOUBLE_EQ(job.target.value, 0.4);
  EXPECT_EQ(job.store_path, db_);
}

TEST_F(SweepRunnerTest, KeepsAtMostJobsPointsRunning) {
  RunStore store(db_);
  // Each point notes how many run beside it (itself included), then runs a while.
  const std::string running = dir_ + "/running";
  const std::string counts = dir_ + "/counts";
  const std::string program =
      fake("*) mkdir -p " + running + "; touch " + running + "/$point; " + "ls " + running +
           " | wc -l >> " + counts + "; sleep 0.3; " + "rm " + running + "/$point; exit 1;;");
  SweepRunner runner(plan(store, 6), options(program, 2));
  Events events;
  const auto t0 = std::chrono::steady_clock::now();
  runner.run(events);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ifstream in(counts);
  std::vector<int> seen;
  for (int n; in >> n;) seen.push_back(n);
  ASSERT_EQ(seen.size(), 6u);
  // Two at a time, never three: points that start together overlap by 0.3 s.
  EXPECT_EQ(*std::max_element(seen.begin(), seen.end()), 2);
  EXPECT_GE(took, 0.85);  // three rounds of 0.3 s at least
}

TEST_F(SweepRunnerTest, ABadInputStopsTheSweepWithItsSentence) {
  RunStore store(db_);
  // Point 0 has bad input; point 1, running beside it, is asked to stop (SIGINT).
  const std::string program = fake(
      "point-0) outcome null true 'unknown dataset nosuch' \"$4\"; exit 2;;\n"
      "*) trap 'kill $!; exit 130' INT; sleep 20 & wait $!;;");
  SweepRunner runner(plan(store, 4), options(program, 2));
  Events events;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    runner.run(events);
    FAIL() << "a bad input did not stop the sweep";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "unknown dataset nosuch");
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  ASSERT_TRUE(events.finished);  // sweep_finished comes before the error
  EXPECT_TRUE(events.outcome.stopped);
  EXPECT_EQ(events.outcome.done, 2u);
  EXPECT_EQ(events.outcome.input_error, "unknown dataset nosuch");
  const std::vector<SweepPoint> points = SweepStore(store).get(runner.plan().sweep_id).points;
  EXPECT_EQ(points[0].status, SweepStatus::kFailed);
  EXPECT_EQ(points[1].status, SweepStatus::kInterrupted) << toString(points[1].status);
  EXPECT_EQ(points[2].status, SweepStatus::kPending);
  EXPECT_EQ(points[3].status, SweepStatus::kPending);
}

TEST_F(SweepRunnerTest, AStopRequestInterruptsTheRunningPointsAndStartsNoMore) {
  RunStore store(db_);
  const std::string program = fake("*) trap 'kill $!; exit 130' INT; sleep 20 & wait $!;;");
  SweepRunner runner(plan(store, 3), options(program, 1));
  Events events;
  events.stop_on_start = true;
  events.runner = &runner;
  const SweepOutcome outcome = runner.run(events);
  EXPECT_TRUE(outcome.stopped);
  EXPECT_EQ(outcome.done, 1u);
  EXPECT_EQ(outcome.total, 3u);
  EXPECT_FALSE(outcome.failed);
  EXPECT_EQ(events.seen,
            (std::vector<std::string>{"started 3", "point 0", "done 0 interrupted 1/3"}));
  // Resuming trains every point that has not ended, with the stored config and target.
  const SweepPlan rest = resumeSweep(store, runner.plan().sweep_id);
  ASSERT_EQ(rest.points.size(), 3u);
  EXPECT_EQ(rest.points[0].status, SweepStatus::kInterrupted);
  EXPECT_EQ(rest.points[2].status, SweepStatus::kPending);
  EXPECT_EQ(rest.base.name, "unit");
  EXPECT_DOUBLE_EQ(rest.target.value, 0.4);
}

TEST(SweepPoint, DescribesItsSizesAndConfig) {
  SweepPoint p;
  p.micro_batch = 8;
  p.accum = 4;
  p.lr = 0.1;
  EXPECT_EQ(describeSweepPoint(p), "B=32 (8×4) lr=0.1");
  ExperimentConfig base;
  base.samples = 1234;
  const ExperimentConfig c = sweepPointConfig(base, p);
  EXPECT_EQ(c.micro_batch, 8);
  EXPECT_EQ(c.accum, 4);
  EXPECT_DOUBLE_EQ(c.optimizer.lr, 0.1);
  EXPECT_EQ(c.samples, 1234);
}

}  // namespace
}  // namespace accumlab
