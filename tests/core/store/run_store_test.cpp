// SPDX-License-Identifier: GPL-3.0-or-later
// The run store: schema, the writer thread, listing and run management (docs/store.md).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include "accumlab/input_error.h"
#include "accumlab/lesson_store.h"
#include "accumlab/sweep_store.h"
#include "store/store_file.h"
#include "store_fixture.h"

namespace accumlab {
namespace {

using testing::makeInfo;
using testing::makeStep;
using testing::sameValue;
using testing::StoreTest;
using Clock = std::chrono::steady_clock;

// The writer's promise: a handed-over row is committed within 250 ms. The bound allows for a
// loaded 2-core machine.
constexpr auto kVisibleWithin = std::chrono::milliseconds(250 + 500);

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Stores a finished experiment with `steps` steps per arm; returns its run ids.
std::vector<StoredRun> storeExperiment(const std::string& db, int64_t steps,
                                       RunInfo info = makeInfo()) {
  StoreSink sink(db);
  sink.onRunStarted(info);
  RunSummary summary;
  summary.info = info;
  for (ArmKind arm : info.config.arms) {
    for (int64_t s = 1; s <= steps; ++s) sink.onStep(makeStep(arm, s));
    EvalRecord e;
    e.arm = arm;
    e.step = steps;
    e.samples_seen = steps * 8;
    e.loss = 0.5;
    e.accuracy = 0.75;
    sink.onEval(e);
    ArmSummary a;
    a.arm = arm;
    a.status = ArmStatus::kFinished;
    a.steps = steps;
    a.samples_seen = steps * 8;
    a.final_train_loss = 0.25;
    a.val_loss = 0.5;
    a.val_accuracy = 0.75;
    sink.onArmFinished(a);
    summary.arms.push_back(a);
  }
  sink.onRunFinished(summary);
  sink.finish();
  return sink.runs();
}

/// The pid of a process that has exited (and been reaped).
int64_t deadPid() {
  pid_t pid = 0;
  char arg0[] = "true";
  char* argv[] = {arg0, nullptr};
  EXPECT_EQ(posix_spawnp(&pid, "true", nullptr, nullptr, argv, environ), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

TEST_F(StoreTest, CreatesTheSchemaInWalModeWithItsVersion) {
  { RunStore store(db_); }
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  EXPECT_EQ(raw.execAndGet("PRAGMA journal_mode").getString(), "wal");
  for (const char* table :
       {"experiments", "runs", "step_metrics", "evals", "events", "tags", "notes"}) {
    EXPECT_TRUE(raw.tableExists(table)) << table;
  }
}

TEST_F(StoreTest, SinkStoresEveryStepColumnExactly) {
  const auto runs = storeExperiment(db_, 300);
  ASSERT_EQ(runs.size(), 2u);
  RunStore store(db_);
  for (const StoredRun& r : runs) {
    const RunSeries s = store.series(r.run_id);
    ASSERT_EQ(s.steps.size(), 300u);
    for (int64_t i = 0; i < 300; ++i) {
      const StepRecord want = makeStep(r.arm, i + 1), got = s.steps[i];
      EXPECT_EQ(got.arm, want.arm);
      EXPECT_EQ(got.step, want.step);
      EXPECT_EQ(got.samples_seen, want.samples_seen);
      EXPECT_EQ(got.memory_bytes, want.memory_bytes);
      EXPECT_EQ(got.peak_tensor_bytes, want.peak_tensor_bytes);
      EXPECT_TRUE(sameValue(got.loss, want.loss)) << got.loss << " vs " << want.loss;
      EXPECT_TRUE(sameValue(got.mb_loss_var, want.mb_loss_var));
      EXPECT_TRUE(sameValue(got.trace_sigma_ema, want.trace_sigma_ema));
      EXPECT_TRUE(sameValue(got.g_sq_est, want.g_sq_est));
      EXPECT_TRUE(sameValue(got.weight_rel_diff, want.weight_rel_diff));
      EXPECT_TRUE(sameValue(got.loss_var_rolling, want.loss_var_rolling));
    }
    ASSERT_EQ(s.evals.size(), 1u);
    EXPECT_EQ(s.evals[0].accuracy, 0.75);
    const RunDetail d = store.run(r.run_id);
    EXPECT_EQ(d.row.status, ArmStatus::kFinished);
    EXPECT_EQ(d.row.steps, 300);
    EXPECT_EQ(d.row.final_loss, 0.25);
    EXPECT_EQ(d.row.val_accuracy, 0.75);
    EXPECT_EQ(d.row.dataset, "spirals");
    EXPECT_EQ(d.config.micro_batch, 4);
    EXPECT_EQ(d.device, "cpu (1 thread)");
    EXPECT_FALSE(d.row.ended_at.empty());
  }
  EXPECT_EQ(store.stepRowCount(), 600);
}

TEST_F(StoreTest, RowsBecomeVisibleWhileTheRunIsGoing) {
  StoreSink sink(db_);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  const int64_t run_id = sink.runs().at(0).run_id;
  RunStore reader(db_);  // another connection, as the GUI's
  EXPECT_EQ(reader.run(run_id).row.status, ArmStatus::kRunning);
  const auto t0 = Clock::now();
  for (int64_t s = 1; s <= 20; ++s) sink.onStep(makeStep(ArmKind::kAccum, s));
  while (reader.series(run_id).steps.size() < 20 && Clock::now() - t0 < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::vector<StepRecord> steps = reader.series(run_id).steps;
  ASSERT_EQ(steps.size(), 20u);
  EXPECT_LT(msSince(t0), (std::chrono::duration<double, std::milli>(kVisibleWithin).count()));
  EXPECT_EQ(steps[15].step, 16);                // in order, none missing
  EXPECT_EQ(reader.run(run_id).row.steps, 20);  // the list shows progress of running runs
}

TEST_F(StoreTest, TrainingThreadNeverWaitsOnABlockedDisk) {
  StoreSink sink(db_);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  // Another writer holds the lock for 1 s: every commit of the sink's writer blocks.
  SQLite::Database other = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
  other.exec("BEGIN IMMEDIATE");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the writer is now stuck
  const auto t0 = Clock::now();
  for (int64_t s = 1; s <= 20000; ++s) sink.onStep(makeStep(ArmKind::kAccum, s));
  const double handing_ms = msSince(t0);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  other.exec("COMMIT");
  sink.finish();
  // 20,000 hand-overs are memory appends (~µs each); waiting on the lock would take ≥ 700 ms.
  EXPECT_LT(handing_ms, 200.0);
  RunStore store(db_);
  EXPECT_EQ(store.stepRowCount(), 20000);
}

TEST_F(StoreTest, ListFiltersByTagDatasetStatusAndLimit) {
  const auto a = storeExperiment(db_, 5);
  RunInfo blobs = makeInfo({ArmKind::kBigBatch});
  blobs.config.data = "blobs";
  const auto b = storeExperiment(db_, 5, blobs);
  RunStore store(db_);
  store.addTags(a[0].run_id, {"baseline", "lr-sweep"});
  store.addTags(b[0].run_id, {"lr-sweep"});

  const auto all = store.listRuns();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].id, b[0].run_id);  // newest first
  EXPECT_EQ(all[0].arm, ArmKind::kBigBatch);
  EXPECT_EQ(all[0].micro_batch, 8);  // big-batch: m·K
  EXPECT_EQ(all[0].accum, 1);
  RunFilter tag;
  tag.tag = "lr-sweep";
  EXPECT_EQ(store.listRuns(tag).size(), 2u);
  tag.tag = "baseline";
  EXPECT_EQ(store.listRuns(tag).size(), 1u);
  RunFilter dataset;
  dataset.dataset = "blobs";
  EXPECT_EQ(store.listRuns(dataset).size(), 1u);
  RunFilter status;
  status.status = ArmStatus::kFinished;
  EXPECT_EQ(store.listRuns(status).size(), 3u);
  status.status = ArmStatus::kRunning;
  EXPECT_EQ(store.listRuns(status).size(), 0u);
  RunFilter limit;
  limit.limit = 2;
  EXPECT_EQ(store.listRuns(limit).size(), 2u);
  RunFilter exp;
  exp.experiment_id = all[2].experiment_id;
  EXPECT_EQ(store.listRuns(exp).size(), 2u);
  EXPECT_EQ(all[2].tags, (std::vector<std::string>{"baseline", "lr-sweep"}));
  EXPECT_EQ(store.allTags(), (std::vector<std::string>{"baseline", "lr-sweep"}));
}

TEST_F(StoreTest, TagsNotesNamesAndDeletion) {
  const auto runs = storeExperiment(db_, 50);
  RunStore store(db_);
  const int64_t id = runs[0].run_id, other = runs[1].run_id;
  store.addTags(id, {"x", "y"});
  store.addTags(id, {"x"});
  store.removeTags(id, {"y", "never"});
  store.setNote(id, "lr too high, see run 2");
  store.rename(id, "first try");
  RunDetail d = store.run(id);
  EXPECT_EQ(d.row.tags, std::vector<std::string>{"x"});
  EXPECT_EQ(d.note, "lr too high, see run 2");
  EXPECT_EQ(d.row.name, "first try");
  store.setNote(id, "");
  EXPECT_EQ(store.run(id).note, "");
  EXPECT_THROW(store.addTags(id, {"two words"}), InputError);
  EXPECT_THROW(store.addTags(999, {"x"}), InputError);
  EXPECT_THROW(store.rename(999, "x"), InputError);

  // A missing id deletes nothing.
  EXPECT_THROW(store.deleteRuns({id, 999}), InputError);
  EXPECT_EQ(store.stepRowCount(), 100);
  store.deleteRuns({id});
  EXPECT_FALSE(store.hasRun(id));
  EXPECT_EQ(store.stepRowCount(), 50);
  EXPECT_EQ(store.allTags().size(), 0u);
  store.deleteRuns({other});
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM experiments").getInt(), 0);
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM evals").getInt(), 0);
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM events").getInt(), 0);
}

TEST_F(StoreTest, SweepsKeepTheirPointsAndOutcomes) {
  const auto runs = storeExperiment(db_, 10);
  RunStore store(db_);
  std::vector<SweepPoint> points(3);
  for (int i = 0; i < 3; ++i) {
    points[i].index = i;
    points[i].micro_batch = 8;
    points[i].accum = 1 << i;
    points[i].lr = 0.05;
  }
  SweepSpec spec;
  spec.target.value = 0.5;
  const int64_t id = SweepStore(store).create("grid", spec, points);
  SweepPoint p = points[1];
  p.run_id = runs[0].run_id;
  p.status = SweepStatus::kReached;
  p.steps_to_target = 12.5;
  p.samples_to_target = 200;
  p.peak_tensor_bytes = 4096;
  SweepStore(store).updatePoint(id, p);
  const SweepDetail d = SweepStore(store).get(id);
  EXPECT_EQ(d.row.name, "grid");
  EXPECT_DOUBLE_EQ(sweepSpecFromJson(d.row.spec_json, "the stored spec").target.value, 0.5);
  EXPECT_EQ(d.row.points, 3);
  EXPECT_EQ(d.row.done, 1);
  EXPECT_EQ(d.row.reached, 1);
  ASSERT_EQ(d.points.size(), 3u);
  EXPECT_EQ(d.points[0].status, SweepStatus::kPending);
  EXPECT_EQ(d.points[1].run_id, runs[0].run_id);
  EXPECT_EQ(d.points[1].accum, 2);
  EXPECT_DOUBLE_EQ(d.points[1].steps_to_target, 12.5);
  EXPECT_EQ(d.points[1].peak_tensor_bytes, 4096);
  EXPECT_TRUE(std::isnan(d.points[0].steps_to_target));
  EXPECT_EQ(SweepStore(store).list().size(), 1u);
  // Deleting the point's run keeps the point, without a run.
  store.deleteRuns({runs[0].run_id});
  EXPECT_EQ(SweepStore(store).get(id).points[1].run_id, 0);
  EXPECT_EQ(SweepStore(store).get(id).points[1].status, SweepStatus::kReached);
  EXPECT_THROW(SweepStore(store).get(id + 1), InputError);
  p.index = 7;
  EXPECT_THROW(SweepStore(store).updatePoint(id, p), InputError);
}

TEST_F(StoreTest, LessonResultsKeepPredictionVerdictAndRuns) {
  const auto runs = storeExperiment(db_, 10);
  RunStore store(db_);
  LessonResultRow first;
  first.lesson_id = "noisy-micro-batch";
  first.title = "One micro-batch is noisy";
  first.prediction = "8";
  first.prediction_correct = true;
  first.all_hold = true;
  first.verdict_json = R"({"lesson": "noisy-micro-batch", "all_hold": true})";
  first.run_ids = {runs[0].run_id, runs[1].run_id};
  const int64_t a = LessonStore(store).add(first);
  LessonResultRow second;
  second.lesson_id = "accumulate-k";
  second.verdict_json = "{}";
  const int64_t b = LessonStore(store).add(second);
  EXPECT_GT(b, a);

  const auto all = LessonStore(store).list();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, b);  // newest first
  EXPECT_FALSE(all[0].prediction_correct.has_value());
  EXPECT_FALSE(all[0].all_hold);
  EXPECT_FALSE(all[0].finished_at.empty());
  const LessonResultRow back = LessonStore(store).get(a);
  EXPECT_EQ(back.lesson_id, "noisy-micro-batch");
  EXPECT_EQ(back.title, "One micro-batch is noisy");
  EXPECT_EQ(back.prediction, "8");
  EXPECT_EQ(back.prediction_correct, std::optional<bool>(true));
  EXPECT_TRUE(back.all_hold);
  EXPECT_EQ(back.verdict_json, first.verdict_json);
  EXPECT_EQ(back.run_ids, first.run_ids);
  EXPECT_EQ(LessonStore(store).list("accumlab-k").size(), 0u);
  EXPECT_EQ(LessonStore(store).list("accumulate-k").size(), 1u);
  EXPECT_THROW(LessonStore(store).get(b + 1), InputError);
}

TEST_F(StoreTest, RunOfAGoneProcessBecomesInterruptedWithItsRows) {
  const auto runs = storeExperiment(db_, 40);
  {
    // Make the first run look like one whose writer died mid-run.
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    SQLite::Statement q(raw,
                        "UPDATE runs SET status = 'running', ended_at = NULL, "
                        "owner_pid = ?, owner_start = 12345 WHERE id = ?");
    q.bind(1, deadPid());
    q.bind(2, runs[0].run_id);
    q.exec();
  }
  RunStore store(db_);
  const RunDetail d = store.run(runs[0].run_id);
  EXPECT_EQ(d.row.status, ArmStatus::kInterrupted);
  EXPECT_FALSE(d.summary.message.empty());
  EXPECT_EQ(store.series(runs[0].run_id).steps.size(), 40u);
  EXPECT_EQ(store.run(runs[1].run_id).row.status, ArmStatus::kFinished);
}

TEST_F(StoreTest, RunOfALiveProcessStaysRunningWhenOthersOpenTheFile) {
  StoreSink sink(db_);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  sink.onStep(makeStep(ArmKind::kAccum, 1));
  sink.finish();
  RunStore gui(db_);
  EXPECT_EQ(gui.markInterruptedRuns(), 0);
  EXPECT_EQ(gui.run(sink.runs()[0].run_id).row.status, ArmStatus::kRunning);
  EXPECT_THROW(gui.deleteRuns({sink.runs()[0].run_id}), InputError);
}

TEST_F(StoreTest, RunOnAnotherHostIsInterruptedOnlyAfterItsHeartbeatStops) {
  const auto runs = storeExperiment(db_, 3);
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    raw.exec(
        "UPDATE runs SET status = 'running', owner_host = 'elsewhere', "
        "heartbeat_at = strftime('%s', 'now')");
    SQLite::Statement old(raw, "UPDATE runs SET heartbeat_at = heartbeat_at - 3600 WHERE id = ?");
    old.bind(1, runs[1].run_id);
    old.exec();
  }
  RunStore store(db_);
  EXPECT_EQ(store.run(runs[0].run_id).row.status, ArmStatus::kRunning);
  EXPECT_EQ(store.run(runs[1].run_id).row.status, ArmStatus::kInterrupted);
}

TEST_F(StoreTest, SinkClosesArmsThatNeverEndedAsFailed) {
  int64_t id = 0;
  {
    StoreSink sink(db_);
    sink.onRunStarted(makeInfo({ArmKind::kAccum}));
    sink.onStep(makeStep(ArmKind::kAccum, 1));
    id = sink.runs()[0].run_id;
  }  // no onArmFinished: the trainer threw
  RunStore store(db_);
  EXPECT_EQ(store.run(id).row.status, ArmStatus::kFailed);
  EXPECT_EQ(store.series(id).steps.size(), 1u);
}

TEST_F(StoreTest, DefaultPathFollowsXdgDataHome) {
  const char* old = std::getenv("XDG_DATA_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_DATA_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(RunStore::defaultPath(), "/tmp/xdg-test/AccumLab/runs.sqlite");
  unsetenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  if (home) {
    EXPECT_EQ(RunStore::defaultPath(), std::string(home) + "/.local/share/AccumLab/runs.sqlite");
  }
  if (old) setenv("XDG_DATA_HOME", saved.c_str(), 1);
}

TEST_F(StoreTest, MissingFileIsAnErrorWhenCreationIsOff) {
  StoreOptions options;
  options.create_if_missing = false;
  try {
    RunStore store(db_, options);
    FAIL() << "opened a missing file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(db_), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(db_));
  RunStore created(dir_ + "/new/folder/runs.sqlite");  // folders are made as needed
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/new/folder/runs.sqlite"));
}

}  // namespace
}  // namespace accumlab

namespace accumlab {
namespace {

TEST(EventKindNames, EveryKindRoundTripsThroughItsStoredName) {
  for (int i = 0; i <= static_cast<int>(EventKind::kOther); ++i) {
    const auto kind = static_cast<EventKind>(i);
    EXPECT_EQ(parseEventKind(toString(kind)), kind) << toString(kind);
  }
  EXPECT_EQ(toString(EventKind::kMicroBatch), "micro_batch");
  EXPECT_EQ(toString(EventKind::kOutOfMemory), "out_of_memory");
  // A store written by a newer version may hold kinds this one does not know.
  EXPECT_EQ(parseEventKind("warp_drive"), EventKind::kOther);
}

TEST_F(StoreTest, EventsComeBackTypedWithTheirArm) {
  StoreSink sink(db_);
  const RunInfo info = makeInfo();
  sink.onRunStarted(info);
  EventRecord all;
  all.kind = EventKind::kAccum;
  all.samples_seen = 16;
  all.message = "K 2 → 4 for all arms at sample 16";
  EventRecord one;
  one.kind = EventKind::kDiverged;
  one.arm = ArmKind::kNoAccum;
  one.samples_seen = 24;
  one.message = "loss is NaN";
  sink.onEvent(all);
  sink.onEvent(one);
  for (ArmKind arm : info.config.arms) {
    for (int64_t s = 1; s <= 4; ++s) sink.onStep(makeStep(arm, s));
  }
  sink.finish();
  RunStore store(db_);
  std::vector<RunRow> rows = store.listRuns({});
  ASSERT_EQ(rows.size(), 2u);
  for (const RunRow& row : rows) {
    const RunDetail d = store.run(row.id);
    // Events of all arms reach every run; an arm's own only its run.
    const size_t want = row.arm == ArmKind::kNoAccum ? 2 : 1;
    ASSERT_EQ(d.events.size(), want) << toString(row.arm);
    EXPECT_EQ(d.events[0].kind, EventKind::kAccum);
    EXPECT_FALSE(d.events[0].arm.has_value());
    if (want == 2) {
      EXPECT_EQ(d.events[1].kind, EventKind::kDiverged);
      EXPECT_EQ(d.events[1].arm, std::optional<ArmKind>(ArmKind::kNoAccum));
    }
  }
}

/// Stores `steps` steps of accum at 4×2 that change m to 16 after the third (the trainer
/// records the change as an event); with `short_last`, the last window has one micro-batch.
void storeRunChangingM(StoreSink& sink, int64_t steps, bool short_last) {
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  for (int64_t s = 1; s <= steps; ++s) {
    StepRecord r = makeStep(ArmKind::kAccum, s);
    if (s == 4) {
      EventRecord change;
      change.kind = EventKind::kMicroBatch;
      change.samples_seen = 3 * 8;
      change.message = "micro-batch 4 → 16 for all arms at sample 24";
      sink.onEvent(change);
    }
    if (s > 3) r.micro_batch = 16;
    if (short_last && s == steps) r.accum = 1;
    sink.onStep(r);
  }
}

TEST_F(StoreTest, RunsListTheirSizesAtTheStartAndAtTheLastStep) {
  StoreSink sink(db_);
  storeRunChangingM(sink, 6, false);
  sink.finish();
  RunStore store(db_);
  const RunRow row = store.listRuns({}).at(0);
  EXPECT_EQ(row.micro_batch, 4);
  EXPECT_EQ(row.accum, 2);
  EXPECT_EQ(row.last_micro_batch, 16);
  EXPECT_EQ(row.last_accum, 2);
  EXPECT_EQ(batchSizesText(row), "4×2→16×2");
  EXPECT_EQ(batchSizesText(8, 8, 8, 8), "8×8");
}

TEST_F(StoreTest, AShortLastWindowIsNotAChangeOfK) {
  // 4×2 → 16×2, then an epoch's end leaves one micro-batch for the last window: the run
  // ended at 16×2 (its summary says so), not at 16×1.
  StoreSink sink(db_);
  storeRunChangingM(sink, 7, true);
  ArmSummary end;
  end.arm = ArmKind::kAccum;
  end.status = ArmStatus::kFinished;
  end.micro_batch = 16;
  end.accum = 2;
  end.steps = 7;
  sink.onArmFinished(end);
  sink.finish();
  RunStore store(db_);
  const RunRow row = store.listRuns({}).at(0);
  EXPECT_EQ(batchSizesText(row), "4×2→16×2");
}

TEST_F(StoreTest, ARunWithoutStepsListsItsStartingSizes) {
  StoreSink sink(db_);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  sink.finish();
  RunStore store(db_);
  const RunRow row = store.listRuns({}).at(0);
  EXPECT_EQ(row.last_micro_batch, 4);
  EXPECT_EQ(row.last_accum, 2);
  EXPECT_EQ(batchSizesText(row), "4×2");
}

TEST_F(StoreTest, TheMeasuredCeilingComesBackAndIsNoneInAnOlderSummary) {
  // The summary is stored as JSON (runs.summary_json): a new field needs no column, and a
  // summary written before it existed reads as no ceiling.
  StoreSink sink(db_);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  ArmSummary a;
  a.arm = ArmKind::kAccum;
  a.status = ArmStatus::kFinished;
  a.flops_per_sample = 407040;
  a.gflop_per_s = 30.5;
  a.ceiling_gflop_per_s = 52.25;
  a.ceiling_op = "GEMM 32×784 by 784×256";
  sink.onArmFinished(a);
  sink.finish();
  const int64_t id = sink.runs().at(0).run_id;
  {
    RunStore store(db_);
    const RunDetail d = store.run(id);
    EXPECT_EQ(d.summary.ceiling_gflop_per_s, 52.25);
    EXPECT_EQ(d.summary.ceiling_op, a.ceiling_op);
    EXPECT_EQ(d.summary.gflop_per_s, 30.5);
  }
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    SQLite::Statement q(raw,
                        "UPDATE runs SET summary_json = json_remove(summary_json, "
                        "'$.ceiling_gflop_per_s', '$.ceiling_op') WHERE id = ?");
    q.bind(1, id);
    EXPECT_EQ(q.exec(), 1);
  }
  RunStore store(db_);
  const RunDetail d = store.run(id);
  EXPECT_TRUE(std::isnan(d.summary.ceiling_gflop_per_s));
  EXPECT_TRUE(d.summary.ceiling_op.empty());
  EXPECT_EQ(d.summary.gflop_per_s, 30.5);
}

}  // namespace
}  // namespace accumlab
