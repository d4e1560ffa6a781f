// SPDX-License-Identifier: GPL-3.0-or-later
// The one grid builder (core/sweeps/sweep_grid.cpp) and the typed job and outcome files of a
// point (core/sweeps/sweep_job.cpp).
#include "accumlab/sweep_grid.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "../data/temp_files.h"
#include "accumlab/input_error.h"
#include "accumlab/output_file.h"
#include "accumlab/sweep_job.h"
#include "accumlab/sweep_runner.h"

namespace accumlab {
namespace {

std::vector<std::pair<int64_t, int64_t>> sizes(const std::vector<SweepPoint>& points) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const SweepPoint& p : points) out.emplace_back(p.micro_batch, p.accum);
  return out;
}

TEST(SweepGrid, EffectiveBatchesTakeEachMicroBatchOnceAndLrsInside) {
  ExperimentConfig base;
  base.optimizer.lr = 0.05;
  SweepGrid grid;
  grid.effective_batches = {4, 16, 32};
  grid.micro_batches = {8, 16};
  const std::vector<SweepPoint> points = buildSweepGrid(base, grid);
  // B = 4 is one micro-batch of 4 (once, though both m are above it).
  EXPECT_EQ(sizes(points),
            (std::vector<std::pair<int64_t, int64_t>>{{4, 1}, {8, 2}, {16, 1}, {8, 4}, {16, 2}}));
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].index, static_cast<int64_t>(i));
    EXPECT_DOUBLE_EQ(points[i].lr, 0.05);  // the base's LR when none are given
  }
  grid.lrs = {0.1, 0.2};
  const std::vector<SweepPoint> with_lrs = buildSweepGrid(base, grid);
  ASSERT_EQ(with_lrs.size(), 10u);
  EXPECT_EQ(with_lrs[0].effectiveBatch(), 4);
  EXPECT_DOUBLE_EQ(with_lrs[0].lr, 0.1);
  EXPECT_EQ(with_lrs[1].effectiveBatch(), 4);
  EXPECT_DOUBLE_EQ(with_lrs[1].lr, 0.2);
}

TEST(SweepGrid, MicroBatchesByAccumsAndTheRefusals) {
  ExperimentConfig base;
  SweepGrid grid;
  grid.micro_batches = {8, 32};
  grid.accums = {1, 4};
  EXPECT_EQ(sizes(buildSweepGrid(base, grid)),
            (std::vector<std::pair<int64_t, int64_t>>{{8, 1}, {8, 4}, {32, 1}, {32, 4}}));
  SweepGrid uneven;
  uneven.effective_batches = {24};
  uneven.micro_batches = {16};
  EXPECT_THROW(buildSweepGrid(base, uneven), InputError);  // 24 is no multiple of 16
  SweepGrid both = grid;
  both.effective_batches = {32};
  EXPECT_THROW(buildSweepGrid(base, both), InputError);
  SweepGrid one;
  one.micro_batches = {8};
  EXPECT_THROW(buildSweepGrid(base, one), InputError);  // a sweep needs 2 points
  EXPECT_EQ(buildSweepGrid(base, one, 1).size(), 1u);
}

TEST(SweepJob, AJobAndAnOutcomeReadBackFromTheirFiles) {
  testing::TempDir dir;
  SweepPlan plan;
  plan.sweep_id = 3;
  plan.base.name = "fm";
  plan.base.samples = 1234;
  plan.target.value = 0.5;
  SweepPoint p;
  p.index = 2;
  p.micro_batch = 8;
  p.accum = 4;
  p.lr = 0.125;
  const std::string path = dir.path() + "/point-2.job.json";
  writeFileWhole(path, sweepJobToJson(makeSweepJob(plan, p, "runs.sqlite")));
  const SweepJob job = readSweepJob(path);
  EXPECT_EQ(job.sweep_id, 3);
  EXPECT_EQ(job.point.index, 2);
  EXPECT_EQ(job.point.effectiveBatch(), 32);
  EXPECT_DOUBLE_EQ(job.point.lr, 0.125);
  EXPECT_EQ(job.config.samples, 1234);
  EXPECT_EQ(job.config.name, "fm · B=32 (8×4) lr=0.125");
  EXPECT_DOUBLE_EQ(job.target.value, 0.5);
  EXPECT_EQ(job.store_path, "runs.sqlite");

  const std::string out = dir.path() + "/point-2.outcome.json";
  EXPECT_FALSE(readSweepJobOutcome(out));  // none written: the worker died first
  SweepJobOutcome outcome;
  outcome.run_id = 41;
  outcome.error = "its loss became NaN";
  writeFileWhole(out, sweepJobOutcomeToJson(outcome));
  const std::optional<SweepJobOutcome> back = readSweepJobOutcome(out);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->run_id, 41);
  EXPECT_FALSE(back->bad_input);
  EXPECT_EQ(back->error, "its loss became NaN");

  std::ofstream(dir.path() + "/not-a-job.json") << "{\"config\": {}}";
  try {
    readSweepJob(dir.path() + "/not-a-job.json");
    FAIL() << "a file that is no job was read as one";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not-a-job.json is not a sweep job"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace accumlab
