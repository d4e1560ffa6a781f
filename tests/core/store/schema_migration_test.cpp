// Files written by an older AccumLab open, migrate in place and keep every row.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cmath>

#include "accumlab/run_store.h"
#include "store_fixture.h"

namespace accumlab {
namespace {

using testing::makeInfo;
using testing::makeStep;
using testing::StoreTest;

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
  }
}

TEST_F(StoreTest, VersionOneFileGainsTheNewStepColumnsAndKeepsItsRows) {
  const int64_t id = storeOneRun(db_, 5);
  {
    // Turn the file back into what version 1 wrote: no grad_norm_applied, no probe.
    SQLite::Database raw(db_, SQLite::OPEN_READWRITE);
    raw.exec("ALTER TABLE step_metrics DROP COLUMN grad_norm_applied");
    raw.exec("ALTER TABLE step_metrics DROP COLUMN probe");
    raw.exec("PRAGMA user_version = 1");
  }
  RunStore store(db_);
  const RunSeries series = store.series(id);
  ASSERT_EQ(series.steps.size(), 5u);
  for (const StepRecord& r : series.steps) {
    EXPECT_EQ(r.loss, makeStep(ArmKind::kAccum, r.step).loss);
    EXPECT_TRUE(std::isnan(r.grad_norm_applied)) << "not measured by version 1";
    EXPECT_FALSE(r.probe);
  }
  SQLite::Database raw(db_);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
  EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
}

}  // namespace
}  // namespace accumlab
