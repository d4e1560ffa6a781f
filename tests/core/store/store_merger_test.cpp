// SPDX-License-Identifier: GPL-3.0-or-later
// Merging stores (core/store/store_merger.cpp): runs and everything stored with them come
// over with new ids, merging again adds nothing, older sources are upgraded on the way in,
// newer and corrupt ones are refused before anything is written.
#include <fstream>

#include "accumlab/input_error.h"
#include "accumlab/lesson_store.h"
#include "accumlab/store_merger.h"
#include "accumlab/sweep_store.h"
#include "store/store_file.h"
#include "store_fixture.h"

namespace accumlab {
namespace {

using testing::makeInfo;
using testing::makeStep;
using testing::sameValue;
using testing::StoreTest;

/// Stores a finished experiment of two arms with `steps` steps, an eval, a tag and a note.
std::vector<StoredRun> storeMergeExperiment(const std::string& db, int64_t steps,
                                            const std::string& name = "unit") {
  RunInfo info = makeInfo();
  info.config.name = name;
  StoreSink sink(db);
  sink.onRunStarted(info);
  EventRecord event;
  event.arm = ArmKind::kAccum;
  event.message = "started " + name;
  sink.onEvent(event);
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
    sink.onArmFinished(a);
    summary.arms.push_back(a);
    ArmWeights w;
    w.arm = arm;
    w.data = std::string("model of ") + toString(arm) + " in " + name + std::string(3, '\0');
    sink.onArmWeights(w);
  }
  sink.onRunFinished(summary);
  sink.finish();
  RunStore store(db);
  store.addTags(sink.runs()[0].run_id, {"merged", name});
  store.setNote(sink.runs()[1].run_id, "a note on " + name);
  return sink.runs();
}

int64_t countRows(const std::string& db, const std::string& table) {
  SQLite::Database raw = store::openStoreFile(db, SQLite::OPEN_READONLY, 0);
  return raw.execAndGet("SELECT count(*) FROM " + table).getInt64();
}

/// Expects `fn` to throw one InputError sentence containing `words`.
template <typename Fn>
void expectMergeRefused(Fn&& fn, const std::string& words) {
  try {
    fn();
    ADD_FAILURE() << "no InputError; expected one containing '" << words << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

class StoreMergerTest : public StoreTest {
 protected:
  std::string source(const std::string& name) { return dir_ + "/" + name + ".sqlite"; }
};

TEST_F(StoreMergerTest, RunsComeOverWithEveryRowUnderNewIds) {
  storeMergeExperiment(db_, 7, "home");  // the destination's own runs take ids 1 and 2
  const auto runs = storeMergeExperiment(source("a"), 25, "away");
  RunStore dest(db_);
  const auto merged = StoreMerger(dest).merge({source("a")});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].runs_added, 2);
  EXPECT_EQ(merged[0].runs_skipped, 0);
  EXPECT_EQ(merged[0].experiments_added, 1);
  EXPECT_EQ(merged[0].step_rows_added, 50);
  ASSERT_EQ(merged[0].runs.size(), 2u);
  RunStore src(source("a"));
  for (size_t i = 0; i < runs.size(); ++i) {
    const MergedRun& r = merged[0].runs[i];
    EXPECT_EQ(r.source_id, runs[i].run_id);
    EXPECT_TRUE(r.added);
    EXPECT_NE(r.id, r.source_id) << "new ids in the destination";
    const RunDetail a = src.run(r.source_id), b = dest.run(r.id);
    EXPECT_EQ(a.config_json, b.config_json);
    EXPECT_EQ(a.summary_json, b.summary_json);
    EXPECT_EQ(a.row.started_at, b.row.started_at);
    EXPECT_EQ(a.row.tags, b.row.tags);
    EXPECT_EQ(a.note, b.note);
    EXPECT_EQ(a.events.size(), b.events.size());
    const RunSeries sa = src.series(r.source_id), sb = dest.series(r.id);
    ASSERT_EQ(sa.steps.size(), sb.steps.size());
    for (size_t s = 0; s < sa.steps.size(); ++s) {
      EXPECT_EQ(sa.steps[s].step, sb.steps[s].step);
      EXPECT_TRUE(sameValue(sa.steps[s].loss, sb.steps[s].loss));
      EXPECT_TRUE(sameValue(sa.steps[s].mb_loss_var, sb.steps[s].mb_loss_var));
    }
    ASSERT_EQ(sb.evals.size(), 1u);
    EXPECT_EQ(sb.evals[0].accuracy, 0.75);
    ASSERT_TRUE(dest.weights(r.id).has_value()) << "the run's trained model came along";
    EXPECT_EQ(dest.weights(r.id)->data, src.weights(r.source_id)->data);
  }
  EXPECT_EQ(dest.run(merged[0].runs[0].id).row.experiment_id,
            dest.run(merged[0].runs[1].id).row.experiment_id)
      << "the arms of one experiment stay together";
  EXPECT_EQ(dest.listRuns().size(), 4u);
}

TEST_F(StoreMergerTest, MergingTheSameStoreTwiceAddsNothing) {
  storeMergeExperiment(source("a"), 10, "a");
  storeMergeExperiment(source("b"), 10, "b");
  RunStore dest(db_);
  StoreMerger(dest).merge({source("a"), source("b")});
  const int64_t steps = dest.stepRowCount();
  const auto again = StoreMerger(dest).merge({source("a"), source("b")});
  for (const MergedStore& m : again) {
    EXPECT_EQ(m.runs_added, 0);
    EXPECT_EQ(m.runs_skipped, 2);
    EXPECT_EQ(m.experiments_added, 0);
    for (const MergedRun& r : m.runs) EXPECT_GT(r.id, 0) << "names the copy merged before";
  }
  EXPECT_EQ(dest.listRuns().size(), 4u);
  EXPECT_EQ(dest.stepRowCount(), steps);
  EXPECT_EQ(countRows(db_, "experiments"), 2);
  EXPECT_EQ(countRows(db_, "events"), 2);
  EXPECT_EQ(countRows(db_, "tags"), 4);
  EXPECT_EQ(countRows(db_, "run_weights"), 4) << "each run's model once";
}

TEST_F(StoreMergerTest, SweepsAndLessonResultsPointAtTheMergedRuns) {
  const auto runs = storeMergeExperiment(source("a"), 5);
  {
    RunStore src(source("a"));
    std::vector<SweepPoint> points(2);
    for (int i = 0; i < 2; ++i) {
      points[i].index = i;
      points[i].micro_batch = 4;
      points[i].accum = 1 + i;
    }
    const int64_t sweep = SweepStore(src).create("grid", SweepSpec{}, points);
    points[1].run_id = runs[1].run_id;
    points[1].status = SweepStatus::kReached;
    SweepStore(src).updatePoint(sweep, points[1]);
    LessonResultRow lesson;
    lesson.lesson_id = "noisy-micro-batch";
    lesson.verdict_json = "{}";
    lesson.run_ids = {runs[0].run_id, runs[1].run_id};
    LessonStore(src).add(lesson);
  }
  storeMergeExperiment(db_, 3, "home");
  RunStore dest(db_);
  const auto merged = StoreMerger(dest).merge({source("a")});
  EXPECT_EQ(merged[0].sweeps_added, 1);
  EXPECT_EQ(merged[0].lesson_results_added, 1);
  const auto sweeps = SweepStore(dest).list();
  ASSERT_EQ(sweeps.size(), 1u);
  const SweepDetail d = SweepStore(dest).get(sweeps[0].id);
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_EQ(d.points[0].run_id, 0);
  EXPECT_EQ(d.points[1].run_id, merged[0].runs[1].id);
  EXPECT_EQ(d.points[1].status, SweepStatus::kReached);
  const auto lessons = LessonStore(dest).list();
  ASSERT_EQ(lessons.size(), 1u);
  EXPECT_EQ(lessons[0].run_ids, (std::vector<int64_t>{merged[0].runs[0].id, merged[0].runs[1].id}));
  const auto again = StoreMerger(dest).merge({source("a")});
  EXPECT_EQ(again[0].sweeps_skipped, 1);
  EXPECT_EQ(again[0].lesson_results_skipped, 1);
  EXPECT_EQ(SweepStore(dest).list().size(), 1u);
}

TEST_F(StoreMergerTest, AnOlderSourceIsUpgradedOnTheWayInAndLeftAsItWas) {
  storeMergeExperiment(source("old"), 6);
  {
    // What schema version 12 wrote: no run identity, no trained models.
    SQLite::Database raw = store::openStoreFile(source("old"), SQLite::OPEN_READWRITE, 0);
    raw.exec("DROP TABLE run_weights");
    raw.exec("DROP TRIGGER runs_uid; DROP INDEX runs_by_uid; ALTER TABLE runs DROP COLUMN uid");
    raw.exec("PRAGMA user_version = 12; PRAGMA wal_checkpoint(TRUNCATE)");
  }
  const std::string before = testing::fileBytes(source("old"));
  RunStore dest(db_);
  const auto merged = StoreMerger(dest).merge({source("old")});
  EXPECT_EQ(merged[0].schema_version, 12);
  EXPECT_EQ(merged[0].runs_added, 2);
  EXPECT_EQ(merged[0].runs[0].uid.size(), 32u);
  EXPECT_FALSE(dest.weights(merged[0].runs[0].id).has_value()) << "an older run kept none";
  EXPECT_EQ(testing::fileBytes(source("old")), before) << "the source file is only read";
  // The identity of an older run is a hash of what made it, the same at every upgrade.
  const auto again = StoreMerger(dest).merge({source("old")});
  EXPECT_EQ(again[0].runs_added, 0);
  EXPECT_EQ(again[0].runs[0].uid, merged[0].runs[0].uid);
  RunStore upgraded(source("old"));  // upgraded in place now
  SQLite::Database raw = store::openStoreFile(source("old"), SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("SELECT uid FROM runs ORDER BY id").getString(), merged[0].runs[0].uid);
}

TEST_F(StoreMergerTest, ANewerSourceIsRefusedInOneSentence) {
  storeMergeExperiment(source("a"), 3);
  storeMergeExperiment(source("new"), 3);
  {
    SQLite::Database raw = store::openStoreFile(source("new"), SQLite::OPEN_READWRITE, 0);
    raw.exec("PRAGMA user_version = 99");
  }
  RunStore dest(db_);
  expectMergeRefused(
      [&] {
        StoreMerger(dest).merge({source("a"), source("new")});
      },
      source("new") + " was written by a newer AccumLab (schema version 99");
  EXPECT_EQ(dest.listRuns().size(), 0u) << "nothing merged, not even the good source";
}

TEST_F(StoreMergerTest, ACorruptSourceIsRefusedBeforeAnythingIsWritten) {
  storeMergeExperiment(source("a"), 3);
  storeMergeExperiment(source("bad"), 3000);
  {
    SQLite::Database raw = store::openStoreFile(source("bad"), SQLite::OPEN_READWRITE, 0);
    raw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  {
    // Keep the first pages (header and schema), overwrite the middle with garbage.
    std::fstream f(source("bad"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto size = static_cast<size_t>(f.tellg());
    ASSERT_GT(size, 80000u);
    std::string garbage(size / 2, '\0');
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 7919) >> 3);
    f.seekp(static_cast<std::streamoff>(size / 4));
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  RunStore dest(db_);
  expectMergeRefused(
      [&] {
        StoreMerger(dest).merge({source("a"), source("bad")});
      },
      source("bad") + " is corrupt");
  EXPECT_EQ(dest.listRuns().size(), 0u);
  EXPECT_EQ(countRows(db_, "experiments"), 0);
}

TEST_F(StoreMergerTest, WhatIsNoStoreIsNamed) {
  RunStore dest(db_);
  expectMergeRefused([&] { StoreMerger(dest).merge({source("missing")}); },
                     "no run store at " + source("missing"));
  expectMergeRefused([&] { StoreMerger(dest).merge({dir_}); }, dir_ + " is a folder");
  expectMergeRefused([&] { StoreMerger(dest).merge({db_}); }, "is the destination store itself");
  { std::ofstream(source("text")) << "not a database, just some words that fill a page\n"; }
  expectMergeRefused([&] { StoreMerger(dest).merge({source("text")}); },
                     source("text") + " is not an SQLite database");
}

}  // namespace
}  // namespace accumlab
