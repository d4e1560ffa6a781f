// SPDX-License-Identifier: GPL-3.0-or-later
// A sweep as an array job (core/sweeps/sweep_array.cpp): its results folder, its script, and
// the refusals of a folder that is not one.
#include "accumlab/sweep_array.h"

#include <gtest/gtest.h>

#include <string>

#include "../data/temp_files.h"
#include "accumlab/input_error.h"
#include "accumlab/sweep_job.h"

namespace accumlab {
namespace {

SweepArray twoPoints() {
  SweepArray array;
  array.id = newSweepArrayId();
  ExperimentConfig base;
  base.name = "fm";
  array.spec.config = base;
  array.spec.target.value = 0.5;
  for (int i = 0; i < 2; ++i) {
    SweepPoint p;
    p.index = i;
    p.micro_batch = 8;
    p.accum = 1 + i;
    p.lr = 0.02;
    array.points.push_back(p);
  }
  return array;
}

TEST(SweepArray, AFolderReadsBackWithAJobPerPointIntoItsOwnStore) {
  testing::TempDir dir;
  const std::string folder = dir.path() + "/results";
  const SweepArray array = twoPoints();
  EXPECT_EQ(array.id.size(), 32u);
  EXPECT_NE(array.id, newSweepArrayId());
  writeSweepArray(folder, array);
  const SweepArray back = readSweepArray(folder);
  EXPECT_EQ(back.id, array.id);
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_EQ(back.points[1].accum, 2);
  EXPECT_DOUBLE_EQ(back.spec.target.value, 0.5);
  const SweepJob job = readSweepJob(sweepArrayFile(folder, 1, "job.json"));
  EXPECT_EQ(job.point.index, 1);
  EXPECT_EQ(job.config.accum, 2);
  EXPECT_EQ(job.store_path, sweepArrayFile(folder, 1, "sqlite"));  // absolute, in the folder
  // A folder holds one sweep: writing another into it is refused.
  EXPECT_THROW(writeSweepArray(folder, twoPoints()), InputError);
  EXPECT_THROW(readSweepArray(dir.path() + "/nothing-here"), InputError);
}

TEST(SweepArray, TheScriptRunsOneTaskPerPointWithTheFolderQuoted) {
  const std::string script =
      slurmArrayScript("/data/it's here", 5, "/opt/accumlab-engine", {"--partition=cpu"});
  EXPECT_NE(script.find("#SBATCH --array=0-4\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=cpu\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --output=/data/it's here/point-%a.log\n"), std::string::npos);
  EXPECT_NE(script.find("exec '/opt/accumlab-engine' sweep-point '/data/it'\\''s here' --point "
                        "\"$SLURM_ARRAY_TASK_ID\"\n"),
            std::string::npos)
      << script;
}

}  // namespace
}  // namespace accumlab
