#include "accumlab/experiment_config.h"

#include <gtest/gtest.h>

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
  const std::string f =
      std::string(ACCUMLAB_SOURCE_DIR) + "/tests/core/config/fuzz_findings/number-beyond-double.json";
  try {
    loadConfigFile(f);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "config file " + f + " holds a number too large for a double (above 1.8e308)");
  }
  EXPECT_THROW(configFromJson(R"({"lr": 1e400})", "exp.json"), InputError);
}

}  // namespace
}  // namespace accumlab
