// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/experiment_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

TEST(ExperimentConfig, JsonRoundTripKeepsEveryField) {
  ExperimentConfig c;
  c.name = "round trip";
  c.data = "csv:/tmp/x.csv";
  c.label = "species";
  c.task = Task::kRegression;
  c.val_fraction = 0.25;
  c.model = "mlp:64,32";
  c.micro_batch = 3;
  c.accum = 17;
  c.arms = {ArmKind::kAccum};
  c.optimizer.kind = OptimizerKind::kAdamW;
  c.optimizer.lr = 3e-4;
  c.optimizer.nesterov = true;
  c.optimizer.scaling = LrScaling::kSqrt;
  c.optimizer.schedule = LrSchedule::kCosine;
  c.optimizer.warmup_samples = 512;
  c.optimizer.clip_norm = 1.5;
  c.window_policy = WindowPolicy::kFlushDivideByK;
  c.dtype = DType::kFloat64;
  c.device = "cuda:1";
  c.seed = 123456789012345ULL;
  c.samples = 99;
  c.noise_stats = false;
  const ExperimentConfig back = configFromJson(configToJson(c), "test");
  EXPECT_EQ(configToJson(back), configToJson(c));
  EXPECT_EQ(back.seed, c.seed);
  EXPECT_EQ(back.window_policy, WindowPolicy::kFlushDivideByK);
}

TEST(ExperimentConfig, EverySettingWrittenIsReadBack) {
  // Every key configToJson writes, set to a value other than its default, reads back as set:
  // the one list of settings drives both directions.
  const std::map<std::string, nlohmann::json> names = {
      {"task", "regression"},    {"text_split", "paragraph"}, {"token_loss", "sequences"},
      {"window_policy", "drop"}, {"dtype", "float64"},        {"kind", "adam"},
      {"lr_scaling", "sqrt"},    {"lr_schedule", "step"},     {"arms", {"accum", "big-batch"}}};
  nlohmann::json changed = nlohmann::json::parse(configToJson(ExperimentConfig{}));
  size_t settings = 0;
  const std::function<void(nlohmann::json&)> change = [&](nlohmann::json& object) {
    for (auto& [key, value] : object.items()) {
      ++settings;
      if (value.is_object()) {
        change(value);
      } else if (names.count(key)) {
        value = names.at(key);
      } else if (value.is_boolean()) {
        value = !value.get<bool>();
      } else if (value.is_number_unsigned()) {
        value = value.get<uint64_t>() + 1;
      } else if (value.is_number_integer()) {
        value = value.get<int64_t>() + 1;
      } else if (value.is_number()) {
        value = value.get<double>() * 2 + 0.5;
      } else if (value.is_string()) {
        value = value.get<std::string>() + "x";
      } else {
        ADD_FAILURE() << "a setting of another type: " << key;
      }
    }
  };
  change(changed);
  EXPECT_GE(settings, 46u);  // 32 of the experiment (the optimizer one of them), its 14
  const ExperimentConfig back = configFromJson(changed.dump(), "test");
  EXPECT_EQ(nlohmann::json::parse(configToJson(back)), changed);
}

TEST(ExperimentConfig, MissingKeysKeepDefaults) {
  const ExperimentConfig c = configFromJson(R"({"accum": 4})", "test");
  EXPECT_EQ(c.accum, 4);
  EXPECT_EQ(c.micro_batch, ExperimentConfig{}.micro_batch);
  EXPECT_EQ(c.arms.size(), 3u);
}

TEST(ExperimentConfig, ErrorsNameTheSourceAndTheKey) {
  try {
    configFromJson(R"({"optimizer": {"kind": "lbfgs"}})", "exp.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "exp.json: optimizer 'lbfgs' is not known: use one of sgd, adam, adamw");
  }
  EXPECT_THROW(configFromJson("[1, 2]", "exp.json"), InputError);
  EXPECT_THROW(loadConfigFile("/nonexistent/exp.json"), InputError);
}

TEST(ExperimentConfig, ValidationRejectsNonsense) {
  ExperimentConfig c;
  c.arms = {ArmKind::kAccum, ArmKind::kAccum};
  EXPECT_THROW(validateConfig(c), InputError);
  c = ExperimentConfig{};
  c.optimizer.momentum = 1.0;
  EXPECT_THROW(validateConfig(c), InputError);
  c = ExperimentConfig{};
  EXPECT_NO_THROW(validateConfig(c));
}

}  // namespace
}  // namespace accumlab

namespace accumlab {
namespace {

TEST(ExperimentConfig, NumbersBeyondADoubleAreInputErrors) {
  // Found by the config fuzzer (tests/fuzz/fuzz_config.cpp): nlohmann reports such a number
  // with out_of_range, not parse_error, and it escaped configFromJson.
  const std::string f = std::string(ACCUMLAB_SOURCE_DIR) +
                        "/tests/core/config/fuzz_findings/number-beyond-double.json";
  try {
    loadConfigFile(f);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "config file " + f + " holds a number too large for a double (above 1.8e308)");
  }
  EXPECT_THROW(configFromJson(R"({"lr": 1e400})", "exp.json"), InputError);
}

TEST(ExperimentConfig, IntegerKeysTakeOnlyWholeNumbersInRange) {
  // Found by the config fuzzer: "samples": 1.01e25 was cast to int64_t (undefined behaviour).
  const std::string f = std::string(ACCUMLAB_SOURCE_DIR) +
                        "/tests/core/config/fuzz_findings/samples-beyond-int64.json";
  try {
    loadConfigFile(f);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "config file " + f +
                  ": key 'samples' must be a whole number from "
                  "-9223372036854775808 to 9223372036854775807, got 1.01e+25");
  }
  EXPECT_THROW(configFromJson(R"({"micro_batch": 2.5})", "exp.json"), InputError);
  EXPECT_THROW(configFromJson(R"({"seed": -1})", "exp.json"), InputError);
  EXPECT_THROW(configFromJson(R"({"threads": 4294967296})", "exp.json"), InputError);
  EXPECT_THROW(configFromJson(R"({"accum": 9223372036854775808})", "exp.json"), InputError);
  // Whole numbers written as floats, and the extremes of each type, are fine.
  EXPECT_EQ(configFromJson(R"({"micro_batch": 32.0})", "exp.json").micro_batch, 32);
  EXPECT_EQ(configFromJson(R"({"seed": 18446744073709551615})", "exp.json").seed,
            18446744073709551615ull);
  EXPECT_EQ(configFromJson(R"({"samples": -9223372036854775808})", "exp.json").samples,
            std::numeric_limits<int64_t>::min());
}

}  // namespace
}  // namespace accumlab

namespace accumlab {
namespace {

TEST(ExperimentConfig, TheDefaultPresetIsTheDefaultExperiment) {
  const ExperimentConfig c = presetExperiment("default");
  EXPECT_EQ(configToJson(c), configToJson(defaultExperiment()));
  EXPECT_EQ(c.arm_threads, 0);  // the demo's arms train at once, one per core
  EXPECT_EQ(c.model, "mlp");
  EXPECT_EQ(c.micro_batch, 8);
  EXPECT_EQ(c.accum, 8);
  if (std::filesystem::is_directory(kFashionMnistDir)) {
    EXPECT_EQ(c.data, "fashion-mnist");
    EXPECT_DOUBLE_EQ(c.optimizer.lr, 0.02);
    EXPECT_EQ(c.samples, 0);
    EXPECT_GE(c.epochs, 5);
  } else {
    EXPECT_EQ(c.data, ExperimentConfig{}.data);
  }
  EXPECT_NO_THROW(validateConfig(c));
  EXPECT_THROW(presetExperiment("fast"), InputError);
}

}  // namespace
}  // namespace accumlab
