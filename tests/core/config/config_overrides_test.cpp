// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/config_overrides.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

TEST(ConfigOverrides, OnlyTheGivenFieldsChange) {
  ExperimentConfig start;
  start.data = "blobs";
  start.optimizer.momentum = 0.5;
  ConfigOverrides o;
  o.micro_batch = 16;
  o.accum = 4;
  o.optimizer.lr = 0.1;
  o.arms = std::vector<ArmKind>{ArmKind::kAccum};
  o.noise_stats = false;
  ExperimentConfig c = start;
  applyOverrides(o, &c);
  EXPECT_EQ(c.micro_batch, 16);
  EXPECT_EQ(c.accum, 4);
  EXPECT_DOUBLE_EQ(c.optimizer.lr, 0.1);
  EXPECT_EQ(c.arms, std::vector<ArmKind>{ArmKind::kAccum});
  EXPECT_FALSE(c.noise_stats);
  // Everything not given is the start's.
  EXPECT_EQ(c.data, "blobs");
  EXPECT_DOUBLE_EQ(c.optimizer.momentum, 0.5);
  ExperimentConfig expected = start;
  expected.micro_batch = 16;
  expected.accum = 4;
  expected.optimizer.lr = 0.1;
  expected.arms = {ArmKind::kAccum};
  expected.noise_stats = false;
  EXPECT_EQ(configToJson(c), configToJson(expected));
}

TEST(ConfigOverrides, NothingGivenChangesNothing) {
  ExperimentConfig c = defaultExperiment();
  applyOverrides(ConfigOverrides{}, &c);
  EXPECT_EQ(configToJson(c), configToJson(defaultExperiment()));
}

TEST(ConfigOverrides, TheBudgetGivenIsTheOneThatCounts) {
  ExperimentConfig c;
  c.epochs = 5;
  c.samples = 0;
  ConfigOverrides in_samples;
  in_samples.samples = 5000;
  applyOverrides(in_samples, &c);
  EXPECT_EQ(c.samples, 5000);
  EXPECT_EQ(c.epochs, 0.0);
  ConfigOverrides in_epochs;
  in_epochs.epochs = 2.5;
  applyOverrides(in_epochs, &c);
  EXPECT_EQ(c.samples, 0);
  EXPECT_EQ(c.epochs, 2.5);
}

TEST(ConfigOverrides, StartsFromTheFileThenThePresetThenWhatItIsGiven) {
  ExperimentConfig otherwise;
  otherwise.name = "otherwise";
  EXPECT_EQ(startingConfig(ConfigOverrides{}, otherwise).name, "otherwise");
  ConfigOverrides preset;
  preset.preset = "default";
  EXPECT_EQ(configToJson(startingConfig(preset, otherwise)),
            configToJson(presetExperiment("default")));
  const auto path = std::filesystem::temp_directory_path() / "accumlab_overrides_test.json";
  ExperimentConfig in_file;
  in_file.name = "from the file";
  std::ofstream(path) << configToJson(in_file);
  ConfigOverrides file = preset;
  file.config_file = path.string();
  EXPECT_EQ(startingConfig(file, otherwise).name, "from the file");
  std::filesystem::remove(path);
  EXPECT_THROW(startingConfig(file, otherwise), InputError);
  ConfigOverrides unknown;
  unknown.preset = "no-such-preset";
  EXPECT_THROW(startingConfig(unknown, otherwise), InputError);
}

}  // namespace
}  // namespace accumlab
