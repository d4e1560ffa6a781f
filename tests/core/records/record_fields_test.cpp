// SPDX-License-Identifier: GPL-3.0-or-later
// The field tables (core/records/record_fields.cpp): every field of every record goes through
// the store, the JSON summary and the checkpoints and comes back exactly (tolerance 0: SQLite
// REAL, JSON numbers as nlohmann prints them and checkpoint doubles all keep 64 bits).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "records/record_fields.h"
#include "store/store_fixture.h"
#include "store/summary_json.h"
#include "train/state_archive.h"

namespace accumlab {
namespace {

using testing::makeInfo;
using testing::StoreTest;

/// A value for field number `i` that no other field has: an integer for integers (positive,
/// so that "not measured" stays out), a non-integer for reals, alternating for flags.
template <typename R>
double distinctValue(const RecordField<R>& f, size_t i) {
  if (f.flag) return i % 2 == 0 ? 1.0 : 0.0;
  if (f.integer) return static_cast<double>(1000 + 7 * i);
  return 0.125 + static_cast<double>(i) / 3.0;
}

/// A record whose every field holds its distinct value.
template <typename R>
R filled(const std::vector<RecordField<R>>& fields) {
  R r;
  for (size_t i = 0; i < fields.size(); ++i) fields[i].set(r, distinctValue(fields[i], i));
  return r;
}

/// Expects every field of `got` to equal its distinct value, exactly.
template <typename R>
void expectFilled(const R& got, const std::vector<RecordField<R>>& fields, const char* where) {
  for (size_t i = 0; i < fields.size(); ++i) {
    EXPECT_EQ(fields[i].get(got), distinctValue(fields[i], i))
        << where << ": field " << fields[i].name;
  }
}

/// Expects the names of a table to be unique, and each member to be set exactly once.
template <typename R>
void expectWellFormed(const std::vector<RecordField<R>>& fields) {
  std::set<std::string> names;
  for (const auto& f : fields) {
    EXPECT_TRUE(names.insert(f.name).second) << "duplicate field " << f.name;
    EXPECT_EQ(!!f.real + !!f.integer + !!f.flag, 1) << f.name;
  }
}

TEST(RecordFields, TablesNameEachFieldOnceAndBeginWithTheirAxes) {
  expectWellFormed(stepFields());
  expectWellFormed(evalFields());
  expectWellFormed(probeFields());
  expectWellFormed(armSummaryFields());
  expectWellFormed(gradCheckFields());
  const std::vector<std::string> axes = {"step", "samples_seen", "wall_ms"};
  for (size_t i = 0; i < kAxisFields; ++i) {
    EXPECT_EQ(stepFields()[i].name, axes[i]);
    EXPECT_EQ(evalFields()[i].name, axes[i]);
    EXPECT_EQ(probeFields()[i].name, axes[i]);
  }
}

TEST(RecordFields, SetAndGetRoundTripEveryField) {
  expectFilled(filled(stepFields()), stepFields(), "step");
  expectFilled(filled(evalFields()), evalFields(), "eval");
  expectFilled(filled(probeFields()), probeFields(), "probe");
  expectFilled(filled(armSummaryFields()), armSummaryFields(), "summary");
  expectFilled(filled(gradCheckFields()), gradCheckFields(), "gradient checks");
}

TEST(RecordFields, NaNGivesAnIntegerItsDefaultAndAFlagFalse) {
  StepRecord r;
  r.peak_tensor_bytes = 5;
  r.probe = true;
  for (const auto& f : stepFields()) {
    if (f.integer == &StepRecord::peak_tensor_bytes || f.flag == &StepRecord::probe) {
      f.set(r, kNaN);
    }
  }
  EXPECT_EQ(r.peak_tensor_bytes, -1);
  EXPECT_FALSE(r.probe);
}

TEST_F(StoreTest, EveryFieldOfEveryStoredRecordComesBackExactly) {
  StoreSink sink(db_);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  const int64_t run_id = sink.runs().at(0).run_id;
  StepRecord step = filled(stepFields());
  step.arm = ArmKind::kAccum;
  EvalRecord eval = filled(evalFields());
  eval.arm = ArmKind::kAccum;
  ProbeRecord probe = filled(probeFields());
  probe.arm = ArmKind::kAccum;
  sink.onStep(step);
  sink.onEval(eval);
  sink.onProbe(probe);
  sink.finish();
  const RunSeries s = RunStore(db_).series(run_id);
  ASSERT_EQ(s.steps.size(), 1u);
  ASSERT_EQ(s.evals.size(), 1u);
  ASSERT_EQ(s.probes.size(), 1u);
  expectFilled(s.steps[0], stepFields(), "stored step");
  expectFilled(s.evals[0], evalFields(), "stored eval");
  expectFilled(s.probes[0], probeFields(), "stored probe");
}

TEST(RecordFields, JsonRoundTripsEveryField) {
  const ArmSummary summary = filled(armSummaryFields());
  expectFilled(store::armSummaryFromJson(store::armSummaryToJson(summary)), armSummaryFields(),
               "summary JSON");
  nlohmann::json j = nlohmann::json::object();
  store::fieldsToJson(j, filled(probeFields()), probeFields());
  ProbeRecord probe;
  store::fieldsFromJson(j, probe, probeFields());
  expectFilled(probe, probeFields(), "probe JSON");
  // The summary's latest probe carries every field of the table.
  const nlohmann::json latest = store::probeToJson(filled(probeFields()), 1);
  for (const auto& f : probeFields()) EXPECT_TRUE(latest.contains(f.name)) << f.name;
}

TEST(RecordFields, NotMeasuredIntegersAreJsonNull) {
  ArmSummary a;
  a.peak_tensor_bytes = -1;
  a.diverged_at_step = -1;
  const nlohmann::json j = store::armSummaryToJson(a);
  EXPECT_TRUE(j["peak_tensor_bytes"].is_null());
  EXPECT_TRUE(j["diverged_at_step"].is_null());
  EXPECT_EQ(store::armSummaryFromJson(j).peak_tensor_bytes, -1);
}

TEST(RecordFields, CheckpointsRoundTripEveryField) {
  torch::serialize::OutputArchive out;
  putFields(out, "probe", filled(probeFields()), probeFields());
  putFields(out, "eval", filled(evalFields()), evalFields());
  putFields(out, "arm", filled(gradCheckFields()), gradCheckFields());
  std::ostringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive in;
  std::istringstream read(bytes.str());
  in.load_from(read);
  ProbeRecord probe;
  getFields(in, "probe", probe, probeFields(), "test.pt", 4);
  expectFilled(probe, probeFields(), "checkpoint probe");
  EvalRecord eval;
  getFields(in, "eval", eval, evalFields(), "test.pt", 1);
  expectFilled(eval, evalFields(), "checkpoint eval");
  GradCheckTally checks;
  getFields(in, "arm", checks, gradCheckFields(), "test.pt", 1);
  expectFilled(checks, gradCheckFields(), "checkpoint gradient checks");
}

TEST(RecordFields, AnOlderCheckpointLacksOnlyTheFieldsAddedSince) {
  // A checkpoint of a probe as written before `pool` and `kurtosis` were kept.
  torch::serialize::OutputArchive out;
  ProbeRecord old = filled(probeFields());
  std::vector<RecordField<ProbeRecord>> first;
  for (const auto& f : probeFields()) {
    if (f.since <= 4) first.push_back(f);
  }
  putFields(out, "probe", old, first);
  std::ostringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive in;
  std::istringstream read(bytes.str());
  in.load_from(read);
  ProbeRecord probe;
  getFields(in, "probe", probe, probeFields(), "old.pt", 4);
  EXPECT_EQ(probe.ratio, old.ratio);
  EXPECT_EQ(probe.pool, 0);  // the default: not in the checkpoint
  EXPECT_TRUE(std::isnan(probe.kurtosis));
  // A field that was always there is required.
  torch::serialize::InputArchive again;
  std::istringstream reread(bytes.str());
  again.load_from(reread);
  EvalRecord eval;
  EXPECT_THROW(getFields(again, "probe", eval, evalFields(), "old.pt", 1), InputError);
}

}  // namespace
}  // namespace accumlab
