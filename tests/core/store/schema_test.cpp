// SPDX-License-Identifier: GPL-3.0-or-later
// Schema versions and their migrations (core/store/schema.cpp): version 2 makes run and
// experiment ids AUTOINCREMENT, so a deleted run's id never comes back; version 3 adds the
// applied gradient norm and the noise-probe flag to the step metrics; version 4 adds the
// detrended loss variance and the fixed-weight variance probes; version 5 the peak tensor
// bytes of each step's window; version 11 the text runs' tokens per second and the line each
// arm writes at an evaluation.
#include <cmath>
#include <thread>

#include "accumlab/input_error.h"
#include "accumlab/lesson_store.h"
#include "accumlab/run_exporter.h"
#include "accumlab/sweep_store.h"
#include "records/record_fields.h"
#include "store/schema.h"
#include "store/store_file.h"
#include "store_fixture.h"

namespace accumlab {
namespace {

using testing::makeInfo;
using testing::makeStep;
using testing::StoreTest;

/// Drops the columns of `table` that a schema version after `version` added.
template <typename R>
void dropColumnsAfter(SQLite::Database& raw, const char* table,
                      const std::vector<RecordField<R>>& fields, int version) {
  for (const auto& f : fields) {
    if (f.since > version) {
      raw.exec(std::string("ALTER TABLE ") + table + " DROP COLUMN " + f.name);
    }
  }
}

/// Turns the current file back into what schema `version` wrote: drops every column and table
/// a later migration added (core/store/schema.cpp), and sets the file's version.
void rewindTo(SQLite::Database& raw, int version) {
  dropColumnsAfter(raw, "step_metrics", stepFields(), version);
  dropColumnsAfter(raw, "evals", evalFields(), version);
  if (version < 4) raw.exec("DROP TABLE probes");
  if (version < 6) raw.exec("DROP TABLE sweep_points; DROP TABLE sweeps");
  if (version < 7) raw.exec("DROP TABLE lesson_results");
  if (version >= 4) dropColumnsAfter(raw, "probes", probeFields(), version);
  if (version >= 4 && version < 10) raw.exec("ALTER TABLE probes DROP COLUMN histogram_json");
  if (version < 11) raw.exec("ALTER TABLE evals DROP COLUMN text_sample");
  if (version < 12) {
    raw.exec("DROP TRIGGER runs_uid; DROP INDEX runs_by_uid; ALTER TABLE runs DROP COLUMN uid");
  }
  if (version < 14) raw.exec("DROP TABLE run_weights");
  raw.exec("PRAGMA user_version = " + std::to_string(version));
}

/// Stores a finished experiment of `arms` with `steps` steps each; returns its runs.
std::vector<StoredRun> storeRowsExperiment(const std::string& db, int64_t steps,
                                           std::vector<ArmKind> arms = {ArmKind::kNoAccum,
                                                                        ArmKind::kAccum}) {
  StoreSink sink(db);
  const RunInfo info = makeInfo(arms);
  sink.onRunStarted(info);
  RunSummary summary;
  summary.info = info;
  for (ArmKind arm : arms) {
    for (int64_t s = 1; s <= steps; ++s) sink.onStep(makeStep(arm, s));
    ArmSummary a;
    a.arm = arm;
    a.status = ArmStatus::kFinished;
    a.steps = steps;
    sink.onArmFinished(a);
    summary.arms.push_back(a);
  }
  sink.onRunFinished(summary);
  sink.finish();
  return sink.runs();
}

std::vector<int64_t> idsOf(const std::vector<StoredRun>& runs) {
  std::vector<int64_t> ids;
  for (const StoredRun& r : runs) ids.push_back(r.run_id);
  return ids;
}

/// A version-1 file (the first release's schema) with two experiments: runs 1, 2 of the
/// first, run 3 of the second; steps, evals, events, tags and notes on each.
void writeVersion1File(const std::string& db) {
  SQLite::Database raw = store::openStoreFile(db, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 0);
  raw.exec("PRAGMA journal_mode = WAL");
  store::migrateSchema(raw, 1);
  ASSERT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), 1);
  raw.exec("PRAGMA foreign_keys = ON");
  for (int e = 1; e <= 2; ++e) {
    raw.exec("INSERT INTO experiments (id, name, created_at) VALUES (" + std::to_string(e) +
             ", 'v1 experiment', '2024-05-01T12:00:00Z')");
  }
  for (int r = 1; r <= 3; ++r) {
    const std::string id = std::to_string(r);
    raw.exec(
        "INSERT INTO runs (id, experiment_id, arm, dataset, model, micro_batch, accum, "
        "config_json, status, started_at, steps) VALUES (" +
        id + ", " + (r < 3 ? "1" : "2") +
        ", 'accum', 'spirals', 'mlp', 8, 4, '{}', 'finished', "
        "'2024-05-01T12:00:00Z', 10)");
    for (int s = 1; s <= 10; ++s) {
      raw.exec("INSERT INTO step_metrics (run_id, step, loss) VALUES (" + id + ", " +
               std::to_string(s) + ", 0.5)");
    }
    raw.exec("INSERT INTO evals (run_id, step, samples_seen, wall_ms, loss) VALUES (" + id +
             ", 10, 80, 5, 0.4)");
    raw.exec("INSERT INTO tags (run_id, tag) VALUES (" + id + ", 'old')");
    raw.exec("INSERT INTO notes (run_id, text, updated_at) VALUES (" + id + ", 'note " + id +
             "', '2024-05-01T12:00:00Z')");
  }
  raw.exec("INSERT INTO events (experiment_id, kind, message) VALUES (1, 'accum', 'K 4 -> 8')");
}

int64_t count(SQLite::Database& raw, const std::string& sql) {
  return raw.execAndGet(sql).getInt64();
}

TEST_F(StoreTest, RunIdsAreNeverReusedAfterADelete) {
  const auto first = storeRowsExperiment(db_, 5);
  const auto second = storeRowsExperiment(db_, 5);
  ASSERT_EQ(idsOf(second), (std::vector<int64_t>{3, 4}));
  {
    RunStore store(db_);
    store.deleteRuns(idsOf(second));  // the newest runs, and with them experiment 2
  }
  StoreSink sink(db_);
  sink.onRunStarted(makeInfo());
  sink.finish();
  EXPECT_EQ(idsOf(sink.runs()), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(sink.experimentId(), 3);
}

TEST_F(StoreTest, VersionOneFileMigratesWithEveryRowAndStopsReusingIds) {
  writeVersion1File(db_);
  {
    RunStore store(db_);  // migrates
    EXPECT_EQ(store.integrityCheck(), "ok");
    const auto rows = store.listRuns();
    ASSERT_EQ(rows.size(), 3u);
    for (const RunRow& r : rows) {
      EXPECT_EQ(store.series(r.id).steps.size(), 10u) << r.id;
      EXPECT_EQ(store.series(r.id).evals.size(), 1u) << r.id;
      EXPECT_EQ(r.tags, std::vector<std::string>{"old"}) << r.id;
      EXPECT_EQ(store.run(r.id).note, "note " + std::to_string(r.id));
      EXPECT_EQ(r.experiment_id, r.id < 3 ? 1 : 2);
    }
    EXPECT_EQ(store.run(1).events.size(), 1u);
    // The cascades still reach the rebuilt tables' children.
    store.deleteRuns({1});
    store.deleteRuns({3});  // the newest run: version 1 would give its id to the next run
  }
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  for (const char* table : {"runs", "experiments"}) {
    const std::string sql =
        raw.execAndGet(std::string("SELECT sql FROM sqlite_master WHERE name = '") + table + "'")
            .getString();
    EXPECT_NE(sql.find("AUTOINCREMENT"), std::string::npos) << sql;
  }
  for (const char* index : {"runs_by_experiment", "runs_by_status", "runs_by_dataset"}) {
    EXPECT_EQ(count(raw, std::string("SELECT count(*) FROM sqlite_master WHERE type = 'index' "
                                     "AND name = '") +
                             index + "'"),
              1)
        << index;
  }
  EXPECT_EQ(count(raw, "SELECT count(*) FROM step_metrics"), 10);  // run 2's only
  EXPECT_EQ(count(raw, "SELECT count(*) FROM tags"), 1);
  EXPECT_EQ(count(raw, "SELECT count(*) FROM notes"), 1);
  EXPECT_EQ(count(raw, "SELECT count(*) FROM evals"), 1);
  EXPECT_EQ(count(raw, "SELECT count(*) FROM experiments"), 1);  // 2 went with run 3
  SQLite::Statement fk(raw, "PRAGMA foreign_key_check");
  EXPECT_FALSE(fk.executeStep());

  const auto next = storeRowsExperiment(db_, 3, {ArmKind::kAccum});
  EXPECT_EQ(idsOf(next), std::vector<int64_t>{4});
}

TEST_F(StoreTest, ProcessesOpeningAVersionOneFileTogetherMigrateItOnce) {
  writeVersion1File(db_);
  std::vector<std::thread> openers;
  std::vector<std::string> errors(4);
  for (size_t i = 0; i < errors.size(); ++i) {
    openers.emplace_back([&, i] {
      try {
        RunStore store(db_);
        if (store.listRuns().size() != 3) errors[i] = "wrong run count";
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (auto& t : openers) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  EXPECT_EQ(count(raw, "SELECT count(*) FROM step_metrics"), 30);
}

/// Writes one run of `steps` steps with this build.
int64_t storeOneRun(const std::string& db, int64_t steps) {
  StoreSink sink(db);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  for (int64_t s = 1; s <= steps; ++s) sink.onStep(makeStep(ArmKind::kAccum, s));
  sink.finish();
  return sink.runs().at(0).run_id;
}

TEST_F(StoreTest, StepsRoundTripTheAppliedGradNormAndTheProbeFlag) {
  const int64_t id = storeOneRun(db_, 8);
  RunStore store(db_);
  const RunSeries series = store.series(id);
  ASSERT_EQ(series.steps.size(), 8u);
  for (const StepRecord& r : series.steps) {
    const StepRecord want = makeStep(ArmKind::kAccum, r.step);
    EXPECT_EQ(r.grad_norm_applied, want.grad_norm_applied) << "step " << r.step;
    EXPECT_EQ(r.probe, want.probe) << "step " << r.step;
    EXPECT_TRUE(testing::sameValue(r.grad_equiv, want.grad_equiv)) << "step " << r.step;
  }
}

TEST_F(StoreTest, VersionTwoFileGainsTheNewStepColumnsAndKeepsItsRows) {
  const int64_t id = storeOneRun(db_, 5);
  {
    // Turn the file back into what version 2 wrote: no grad_norm_applied, probe, grad_equiv
    // (version 3) nor peak_tensor_bytes (version 5).
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    rewindTo(raw, 2);
  }
  RunStore store(db_);
  const RunSeries series = store.series(id);
  ASSERT_EQ(series.steps.size(), 5u);
  for (const StepRecord& r : series.steps) {
    EXPECT_EQ(r.loss, makeStep(ArmKind::kAccum, r.step).loss);
    EXPECT_TRUE(std::isnan(r.grad_norm_applied)) << "not measured by version 2";
    EXPECT_FALSE(r.probe);
    EXPECT_TRUE(std::isnan(r.grad_equiv));
    EXPECT_EQ(r.peak_tensor_bytes, -1);
    EXPECT_TRUE(std::isnan(r.allreduce_ms));
    EXPECT_TRUE(std::isnan(r.grad_equiv_f64));
  }
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
}

TEST_F(StoreTest, VersionThreeFileGainsProbesAndPeakTensorBytes) {
  const int64_t id = storeOneRun(db_, 5);
  {
    // Turn the file back into what version 3 wrote: no detrended variance, no probes
    // table, no peak_tensor_bytes.
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    rewindTo(raw, 3);
  }
  RunStore store(db_);
  EXPECT_TRUE(SweepStore(store).list().empty()) << "version 6 adds the sweeps";
  EXPECT_TRUE(LessonStore(store).list().empty()) << "version 7 adds the lesson results";
  const RunSeries series = store.series(id);
  ASSERT_EQ(series.steps.size(), 5u);
  for (const StepRecord& r : series.steps) {
    EXPECT_EQ(r.loss, makeStep(ArmKind::kAccum, r.step).loss);
    EXPECT_EQ(r.grad_norm_applied, makeStep(ArmKind::kAccum, r.step).grad_norm_applied);
    EXPECT_EQ(r.peak_tensor_bytes, -1) << "not measured before version 5";
  }
  const int64_t next = storeOneRun(db_, 3);
  for (const StepRecord& r : store.series(next).steps) {
    EXPECT_EQ(r.peak_tensor_bytes, makeStep(ArmKind::kAccum, r.step).peak_tensor_bytes);
  }
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
}

TEST_F(StoreTest, ProbesAndTheDetrendedVarianceRoundTrip) {
  int64_t id = 0;
  {
    StoreSink sink(db_);
    sink.onRunStarted(makeInfo({ArmKind::kNoAccum, ArmKind::kAccum}));
    for (int64_t s = 1; s <= 4; ++s) {
      StepRecord r = makeStep(ArmKind::kAccum, s);
      r.loss_var_detrended = 0.25 * static_cast<double>(s);
      r.loss_var_count = s;
      sink.onStep(r);
    }
    ProbeRecord p;
    p.arm = ArmKind::kAccum;
    p.step = 4;
    p.samples_seen = 64;
    p.wall_ms = 12.5;
    p.micro_batch = 4;
    p.accum = 4;
    p.repeats = 64;
    p.var_micro = 0.8;
    p.var_window = 0.2;
    p.ratio = 4.0;
    p.ci_low = 2.6;
    p.ci_high = 6.2;
    p.theory = 4.0;
    sink.onProbe(p);
    p.samples_seen = 128;
    p.ci_low = kNaN;  // stored as NULL, read back as NaN
    p.pool = 4096;
    p.histogram.low = 0.25;
    p.histogram.high = 1.5;
    p.histogram.micro = {3, 9, 4};
    p.histogram.window = {0, 16, 0};
    sink.onProbe(p);
    sink.finish();
    id = sink.runs().at(1).run_id;
  }
  RunStore store(db_);
  const RunSeries series = store.series(id);
  ASSERT_EQ(series.steps.size(), 4u);
  EXPECT_EQ(series.steps[2].loss_var_detrended, 0.75);
  EXPECT_EQ(series.steps[2].loss_var_count, 3);
  ASSERT_EQ(series.probes.size(), 2u);
  const ProbeRecord& p = series.probes[0];
  EXPECT_EQ(p.arm, ArmKind::kAccum);
  EXPECT_EQ(p.samples_seen, 64);
  EXPECT_EQ(p.wall_ms, 12.5);
  EXPECT_EQ(p.repeats, 64);
  EXPECT_EQ(p.var_micro, 0.8);
  EXPECT_EQ(p.ratio, 4.0);
  EXPECT_EQ(p.ci_high, 6.2);
  EXPECT_FALSE(p.batch_dependent);
  EXPECT_TRUE(std::isnan(series.probes[1].ci_low));
  EXPECT_EQ(p.pool, 0);
  EXPECT_TRUE(p.histogram.empty());
  const ProbeRecord& q = series.probes[1];
  EXPECT_EQ(q.pool, 4096);
  EXPECT_EQ(q.histogram.low, 0.25);
  EXPECT_EQ(q.histogram.high, 1.5);
  EXPECT_EQ(q.histogram.micro, (std::vector<int64_t>{3, 9, 4}));
  EXPECT_EQ(q.histogram.window, (std::vector<int64_t>{0, 16, 0}));
  const std::string json = RunExporter(store).text({id}, ExportFormat::kJson);
  EXPECT_NE(json.find("\"probes\""), std::string::npos);
  EXPECT_NE(json.find("\"var_window\""), std::string::npos);
  EXPECT_NE(json.find("\"loss_var_detrended\""), std::string::npos);
}

TEST_F(StoreTest, VersionNineProbesGainAPoolAndNoHistogram) {
  const int64_t id = storeOneRun(db_, 1);
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    raw.exec(
        "INSERT INTO probes (run_id, step, samples_seen, wall_ms, micro_batch, accum, "
        "repeats, ratio, ci_low, ci_high, theory) VALUES (" +
        std::to_string(id) + ", 1, 8, 1.0, 8, 8, 64, 6.6, 3.6, 13.4, 8)");
    // What version 9 wrote: a probe without its pool and histogram.
    rewindTo(raw, 9);
  }
  RunStore store(db_);
  const RunSeries series = store.series(id);
  ASSERT_EQ(series.probes.size(), 1u);
  EXPECT_EQ(series.probes[0].ratio, 6.6);
  EXPECT_EQ(series.probes[0].pool, 0) << "every batch its own forward before version 10";
  EXPECT_TRUE(series.probes[0].histogram.empty());
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
}

TEST_F(StoreTest, VersionElevenProbesGainNoKurtosisAndKeepTheirFields) {
  const int64_t id = storeOneRun(db_, 1);
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    raw.exec(
        "INSERT INTO probes (run_id, step, samples_seen, wall_ms, micro_batch, accum, "
        "repeats, ratio, ci_low, ci_high, theory, pool, kurtosis) VALUES (" +
        std::to_string(id) + ", 1, 8, 1.0, 8, 8, 64, 6.6, 3.6, 13.4, 8, 4096, 2.5)");
    // What version 11 wrote: a probe without the kurtosis its interval assumed.
    rewindTo(raw, 11);
  }
  RunStore store(db_);
  const RunSeries series = store.series(id);
  ASSERT_EQ(series.probes.size(), 1u);
  EXPECT_EQ(series.probes[0].ratio, 6.6);
  EXPECT_EQ(series.probes[0].pool, 4096);
  EXPECT_TRUE(std::isnan(series.probes[0].kurtosis)) << "not kept before version 12";
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
}

TEST_F(StoreTest, VersionTenEvalsGainNoTextAndStepsNoTokensPerSecond) {
  const int64_t id = storeOneRun(db_, 3);
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    raw.exec("INSERT INTO evals (run_id, step, samples_seen, wall_ms, loss, text_sample) VALUES (" +
             std::to_string(id) + ", 3, 24, 1.0, 2.5, NULL)");
    // What version 10 wrote: no tokens per second, evaluations without text.
    rewindTo(raw, 10);
  }
  RunStore store(db_);
  const RunSeries series = store.series(id);
  ASSERT_EQ(series.steps.size(), 3u);
  EXPECT_TRUE(std::isnan(series.steps.back().tokens_per_s)) << "not measured by version 10";
  ASSERT_FALSE(series.evals.empty());
  EXPECT_EQ(series.evals.back().loss, 2.5);
  EXPECT_TRUE(series.evals.back().text_sample.empty());
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
    EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  }
  // The upgraded file stores what a text run writes.
  StoreSink sink(db_);
  const RunInfo info = makeInfo();
  sink.onRunStarted(info);
  StepRecord step = makeStep(info.config.arms[0], 1);
  step.tokens_per_s = 1234.5;
  sink.onStep(step);
  sink.onEval({info.config.arms[0], 1, 8, 2.0, 2.25, kNaN, "the fox"});
  RunSummary summary;
  summary.info = info;
  sink.onRunFinished(summary);
  sink.finish();
  const RunSeries fresh = RunStore(db_).series(sink.runs().at(0).run_id);
  ASSERT_EQ(fresh.steps.size(), 1u);
  EXPECT_EQ(fresh.steps[0].tokens_per_s, 1234.5);
  ASSERT_EQ(fresh.evals.size(), 1u);
  EXPECT_EQ(fresh.evals[0].text_sample, "the fox");
}

/// ArmWeights of `arm` whose bytes are every byte value, NULs included, `n` times.
ArmWeights someWeights(ArmKind arm, int n) {
  ArmWeights w;
  w.arm = arm;
  for (int i = 0; i < n * 256; ++i) w.data.push_back(static_cast<char>(i % 256));
  return w;
}

TEST_F(StoreTest, ArmWeightsRoundTripAndGoWithTheirRun) {
  StoreSink sink(db_);
  const RunInfo info = makeInfo();
  sink.onRunStarted(info);
  RunSummary summary;
  summary.info = info;
  for (ArmKind arm : info.config.arms) {
    sink.onStep(makeStep(arm, 1));
    ArmSummary a;
    a.arm = arm;
    a.status = ArmStatus::kFinished;
    sink.onArmFinished(a);
    summary.arms.push_back(a);
  }
  const ArmWeights kept = someWeights(ArmKind::kAccum, 40);
  sink.onArmWeights(kept);
  sink.onArmWeights(kept);  // a resumed run ends again: the weights are replaced, not doubled
  sink.onRunFinished(summary);
  sink.finish();
  const int64_t no_accum = sink.runs()[0].run_id, accum = sink.runs()[1].run_id;
  RunStore store(db_);
  EXPECT_FALSE(store.weights(no_accum).has_value()) << "no-accum kept none";
  EXPECT_EQ(store.weightsBytes(no_accum), 0);
  const std::optional<ArmWeights> back = store.weights(accum);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->arm, ArmKind::kAccum);
  EXPECT_EQ(back->format, "torchscript");
  EXPECT_EQ(back->data, kept.data) << "every byte, NULs included";
  EXPECT_EQ(store.weightsBytes(accum), 40 * 256);
  EXPECT_THROW(store.weights(accum + 100), InputError);
  store.deleteRuns({accum});
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(count(raw, "SELECT count(*) FROM run_weights"), 0) << "deleted with the run";
}

TEST_F(StoreTest, VersionThirteenFileGainsRunWeightsAndKeepsItsRuns) {
  const int64_t id = storeOneRun(db_, 3);
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    rewindTo(raw, 13);
  }
  RunStore store(db_);
  EXPECT_EQ(store.series(id).steps.size(), 3u);
  EXPECT_FALSE(store.weights(id).has_value()) << "runs of older files kept no weights";
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  EXPECT_EQ(count(raw, "SELECT count(*) FROM run_weights"), 0);
}

}  // namespace
}  // namespace accumlab
