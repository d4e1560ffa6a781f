// SPDX-License-Identifier: GPL-3.0-or-later
// Exports: what `export --format json|csv` writes must be what the store holds.
#include <nlohmann/json.hpp>

#include <sstream>

#include "accumlab/input_error.h"
#include "accumlab/run_exporter.h"
#include "accumlab/variance_ratio.h"
#include "store_fixture.h"

namespace accumlab {
namespace {

using nlohmann::json;
using testing::makeInfo;
using testing::makeStep;
using testing::sameValue;
using testing::StoreTest;

constexpr int64_t kSteps = 120;
constexpr char kWritten[] = "say \"hi\" twice";  ///< the text sample of each arm's step-40 eval

/// The fixed-weight probe of accum's weights stored at `step` (every 40 steps): ratios near K.
ProbeRecord exportProbe(int64_t step) {
  ProbeRecord p;
  p.arm = ArmKind::kAccum;
  p.step = step;
  p.samples_seen = step * 8;
  p.micro_batch = 4;
  p.accum = 2;
  p.repeats = 2048;
  p.ratio = 1.9 + static_cast<double>(step) / 400;
  p.ci_low = p.ratio * 0.8;
  p.ci_high = p.ratio * 1.25;
  p.theory = 2;
  p.kurtosis = 0;
  return p;
}

/// A finished two-arm experiment with evals (one before the first step, one with a line the
/// model wrote), events, NaNs, three probes of accum's weights, a tag and a note; returns the
/// run ids.
std::vector<int64_t> storeRich(const std::string& db) {
  std::vector<int64_t> ids;
  {
    StoreSink sink(db);
    const RunInfo info = makeInfo();
    sink.onRunStarted(info);
    sink.onEvent({0, 0.0, EventKind::kModel, std::nullopt, "window policy stream"});
    RunSummary summary;
    summary.info = info;
    for (ArmKind arm : info.config.arms) {
      for (int64_t s = 0; s <= kSteps; s += 40) {
        sink.onEval({arm, s, s * 8, s * 0.25, 1.0 / (s + 1), s == 0 ? kNaN : 0.5 + s * 1e-3,
                     s == 40 ? kWritten : ""});
      }
      for (int64_t s = 1; s <= kSteps; ++s) {
        sink.onStep(makeStep(arm, s));
        if (arm == ArmKind::kAccum && s % 40 == 0) sink.onProbe(exportProbe(s));
      }
      sink.onEvent({kSteps * 8, 30.0, EventKind::kAccum, arm, "K 2 → 4"});
      ArmSummary a;
      a.arm = arm;
      a.status = ArmStatus::kFinished;
      a.steps = kSteps;
      a.final_train_loss = 0.125;
      a.b_simple = kNaN;
      summary.arms.push_back(a);
    }
    sink.onRunFinished(summary);
    sink.finish();
    for (const StoredRun& r : sink.runs()) ids.push_back(r.run_id);
  }
  RunStore store(db);
  store.addTags(ids[0], {"baseline"});
  store.setNote(ids[0], "quotes \" and, commas\nand lines");
  return ids;
}

bool sameJsonNumber(const json& j, double v) {
  return j.is_null() ? std::isnan(v) : (j.is_number() && j.get<double>() == v);
}

TEST_F(StoreTest, JsonExportReadsBackAsExactlyWhatTheStoreHolds) {
  const auto ids = storeRich(db_);
  RunStore store(db_);
  const json doc = json::parse(RunExporter(store).text(ids, ExportFormat::kJson));
  EXPECT_EQ(doc["format"], "accumlab-runs");
  ASSERT_EQ(doc["runs"].size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const json& run = doc["runs"][i];
    const RunDetail d = store.run(ids[i]);
    const RunSeries s = store.series(ids[i]);
    EXPECT_EQ(run["id"], ids[i]);
    EXPECT_EQ(run["arm"], toString(d.row.arm));
    EXPECT_EQ(run["status"], "finished");
    EXPECT_EQ(run["config"], json::parse(d.config_json));
    // The stored summary, with the run's headline: its probes pooled (accum's weights only).
    json summary = run["summary"];
    if (d.row.arm == ArmKind::kAccum) {
      ASSERT_TRUE(summary.contains("variance_probe")) << summary;
      const PooledProbe pooled = poolProbes(s.probes).value();
      const json& v = summary["variance_probe"];
      EXPECT_TRUE(sameJsonNumber(v["ratio"], pooled.ratio));
      EXPECT_TRUE(sameJsonNumber(v["ci_low"], pooled.ci_low));
      EXPECT_TRUE(sameJsonNumber(v["ci_high"], pooled.ci_high));
      EXPECT_LT(v["ci_low"].get<double>(), v["ratio"].get<double>());
      EXPECT_LT(v["ratio"].get<double>(), v["ci_high"].get<double>());
      EXPECT_EQ(v["theory"], 2.0);
      EXPECT_EQ(v["probes"], 3);
      EXPECT_EQ(v["pooled"], 3);
      EXPECT_EQ(v["accum"], 2);
      summary.erase("variance_probe");
    } else {
      EXPECT_FALSE(summary.contains("variance_probe")) << "no probe of no-accum's weights";
    }
    EXPECT_EQ(summary, json::parse(d.summary_json));
    EXPECT_EQ(run["tags"].get<std::vector<std::string>>(), d.row.tags);
    EXPECT_EQ(run["note"], d.note);
    ASSERT_EQ(run["events"].size(), d.events.size());
    for (size_t e = 0; e < d.events.size(); ++e) {
      EXPECT_EQ(run["events"][e]["message"], d.events[e].message);
      EXPECT_EQ(run["events"][e]["samples_seen"], d.events[e].samples_seen);
    }
    // Every metric column, every step, bit for bit (NaN as null).
    const json& m = run["metrics"];
    ASSERT_EQ(m["step"].size(), s.steps.size());
    ASSERT_EQ(s.steps.size(), static_cast<size_t>(kSteps));
    for (size_t k = 0; k < s.steps.size(); ++k) {
      const StepRecord& r = s.steps[k];
      EXPECT_EQ(m["step"][k], r.step);
      EXPECT_EQ(m["samples_seen"][k], r.samples_seen);
      EXPECT_EQ(m["memory_bytes"][k], r.memory_bytes);
      EXPECT_TRUE(sameJsonNumber(m["wall_ms"][k], r.wall_ms));
      EXPECT_TRUE(sameJsonNumber(m["loss"][k], r.loss));
      EXPECT_TRUE(sameJsonNumber(m["mb_loss_var"][k], r.mb_loss_var));
      EXPECT_TRUE(sameJsonNumber(m["trace_sigma_ema"][k], r.trace_sigma_ema));
      EXPECT_TRUE(sameJsonNumber(m["noise_per_update"][k], r.noise_per_update));
      EXPECT_TRUE(sameJsonNumber(m["weight_rel_diff"][k], r.weight_rel_diff));
      EXPECT_TRUE(sameJsonNumber(m["grad_norm_applied"][k], r.grad_norm_applied));
      EXPECT_EQ(m["probe"][k], r.probe);  // a JSON boolean
      EXPECT_TRUE(sameJsonNumber(m["grad_equiv"][k], r.grad_equiv));
      EXPECT_TRUE(sameJsonNumber(m["loss_var_detrended"][k], r.loss_var_detrended));
      EXPECT_EQ(m["loss_var_count"][k], r.loss_var_count);
      EXPECT_EQ(m["peak_tensor_bytes"][k], r.peak_tensor_bytes);  // -1: not measured
    }
    EXPECT_EQ(m.size(), 34u);  // every StepRecord field but arm
    ASSERT_EQ(run["evals"]["step"].size(), s.evals.size());
    for (size_t k = 0; k < s.evals.size(); ++k) {
      EXPECT_EQ(run["evals"]["step"][k], s.evals[k].step);
      EXPECT_TRUE(sameJsonNumber(run["evals"]["accuracy"][k], s.evals[k].accuracy));
      EXPECT_TRUE(sameJsonNumber(run["evals"]["loss"][k], s.evals[k].loss));
      const json& written = run["evals"]["text_sample"][k];
      if (s.evals[k].step == 40) {
        EXPECT_EQ(written, kWritten);
      } else {
        EXPECT_TRUE(written.is_null()) << written;  // no text: null, not ""
      }
    }
  }
}

TEST_F(StoreTest, CsvExportIsLongFormWithOneRowPerStep) {
  const auto ids = storeRich(db_);
  RunStore store(db_);
  std::istringstream csv(RunExporter(store).text(ids, ExportFormat::kCsv));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("run_id,arm,step,samples_seen,wall_ms,micro_batch,", 0), 0u) << line;
  EXPECT_NE(line.find(",loss,"), std::string::npos);
  EXPECT_NE(line.find(",val_loss,val_accuracy,val_text_sample,probe_ratio,probe_ci_low,"
                      "probe_ci_high,probe_theory,probe_pooled,"),
            std::string::npos)
      << line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    std::string c;
    while (std::getline(in, c, ',')) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    // run_id, arm, 34 step columns, 3 eval columns, 8 of the probes' headline
    ASSERT_EQ(cells.size(), 47u) << line;
    rows.push_back(cells);
  }
  // Per run: kSteps rows plus one for the evaluation at step 0, which has no step row.
  ASSERT_EQ(rows.size(), ids.size() * (kSteps + 1));
  EXPECT_EQ(rows[0][0], std::to_string(ids[0]));
  EXPECT_EQ(rows[0][2], "0");  // the step-0 evaluation comes first
  EXPECT_EQ(rows[0][8], "");   // it has no loss of a step
  EXPECT_EQ(rows[0][37], "");  // and its accuracy was NaN
  const RunSeries s = store.series(ids[0]);
  for (int64_t k = 1; k <= kSteps; ++k) {
    const auto& row = rows[k];
    const StepRecord& r = s.steps[k - 1];
    EXPECT_EQ(std::stoll(row[2]), r.step);
    EXPECT_EQ(std::stod(row[8]), r.loss);  // the shortest text reads back exactly
    EXPECT_EQ(row[10].empty(), std::isnan(r.mb_loss_var));
    EXPECT_EQ(row[36].empty(), r.step % 40 != 0);                        // evaluated every 40 steps
    EXPECT_EQ(row[38], r.step == 40 ? "\"say \"\"hi\"\" twice\"" : "");  // CSV quotes
  }
  EXPECT_EQ(std::stod(rows[40][37]), 0.5 + 40 * 1e-3);
  // The probes' headline: on accum's probed steps, the probes so far pooled; the last is the
  // run's own (the JSON summary's variance_probe).
  const size_t accum_first = kSteps + 1;
  ASSERT_EQ(rows[accum_first][1], "accum");
  const RunSeries a = store.series(ids[1]);
  ASSERT_EQ(a.probes.size(), 3u);
  for (int64_t k = 1; k <= kSteps; ++k) {
    const auto& row = rows[accum_first + k];
    EXPECT_EQ(row[39].empty(), k % 40 != 0) << "step " << k;
    EXPECT_TRUE(rows[k][39].empty()) << "no-accum was not probed";
  }
  EXPECT_EQ(std::stod(rows[accum_first + 40][39]), a.probes[0].ratio) << "one probe: its own";
  EXPECT_EQ(rows[accum_first + 80][43], "2");  // pooled
  const PooledProbe all = poolProbes(a.probes).value();
  const auto& last = rows[accum_first + kSteps];
  EXPECT_EQ(std::stod(last[39]), all.ratio);
  EXPECT_EQ(std::stod(last[40]), all.ci_low);
  EXPECT_EQ(std::stod(last[41]), all.ci_high);
  EXPECT_EQ(std::stod(last[42]), 2.0);
  EXPECT_EQ(last[43], "3");
}

TEST_F(StoreTest, ExportOfAMissingRunOrToABadPathFailsCleanly) {
  const auto ids = storeRich(db_);
  RunStore store(db_);
  const std::string out = dir_ + "/out.json";
  EXPECT_THROW(RunExporter(store).write({ids[0], 4242}, ExportFormat::kJson, out), InputError);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_THROW(RunExporter(store).write(ids, ExportFormat::kCsv, dir_ + "/no/such/folder/x.csv"),
               InputError);
  RunExporter(store).write(ids, ExportFormat::kCsv, dir_ + "/x.csv");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/x.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/x.csv.partial"));
  EXPECT_THROW(parseExportFormat("xlsx"), InputError);
}

TEST_F(StoreTest, ExportNeverOverwritesTheStoreOrItsJournals) {
  const auto ids = storeRich(db_);
  RunStore store(db_);
  const int64_t rows = store.stepRowCount();
  std::filesystem::create_symlink(db_, dir_ + "/alias.sqlite");
  for (const std::string& target :
       {db_, db_ + "-wal", dir_ + "/alias.sqlite",
        dir_ + "/../" + std::filesystem::path(dir_).filename().string() + "/runs.sqlite"}) {
    EXPECT_TRUE(RunStore::wouldOverwrite(db_, target)) << target;
    EXPECT_THROW(RunExporter(store).write(ids, ExportFormat::kCsv, target), InputError) << target;
  }
  EXPECT_FALSE(RunStore::wouldOverwrite(db_, dir_ + "/other.csv"));
  EXPECT_EQ(store.integrityCheck(), "ok");
  EXPECT_EQ(store.stepRowCount(), rows);
}

TEST(ConfigDiff, ListsOnlyTheKeysThatDiffer) {
  const auto diffs = diffConfigs({R"({"a": 1, "opt": {"lr": 0.1, "kind": "sgd"}, "arms": [1]})",
                                  R"({"a": 1, "opt": {"lr": 0.2, "kind": "sgd"}, "arms": [1, 2]})",
                                  R"({"a": 1, "opt": {"lr": 0.1, "kind": "sgd"}, "x": true})"});
  ASSERT_EQ(diffs.size(), 3u);
  EXPECT_EQ(diffs[0].key, "arms");
  EXPECT_EQ(diffs[0].values, (std::vector<std::string>{"[1]", "[1,2]", "—"}));
  EXPECT_EQ(diffs[1].key, "opt.lr");
  EXPECT_EQ(diffs[1].values, (std::vector<std::string>{"0.1", "0.2", "0.1"}));
  EXPECT_EQ(diffs[2].key, "x");
}

TEST(ConfigDiff, FlattensAConfigToSortedDottedKeys) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(
      flattenConfig(R"({"opt": {"lr": 0.1, "kind": "sgd"}, "arms": ["accum"], "a": 1})"),
      (Pairs{{"a", "1"}, {"arms", "[\"accum\"]"}, {"opt.kind", "\"sgd\""}, {"opt.lr", "0.1"}}));
}

}  // namespace
}  // namespace accumlab
