// SPDX-License-Identifier: GPL-3.0-or-later
// The sweep's one JSON spec (core/sweeps/sweep_spec.cpp) and its point statuses
// (core/sweeps/sweep.cpp): the stored names are an interface.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <utility>

#include "accumlab/input_error.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_spec.h"

namespace accumlab {
namespace {

TEST(SweepStatus, EveryStatusKeepsItsStoredName) {
  const std::pair<SweepStatus, const char*> names[] = {
      {SweepStatus::kPending, "pending"},        {SweepStatus::kRunning, "running"},
      {SweepStatus::kReached, "reached"},        {SweepStatus::kMissed, "missed"},
      {SweepStatus::kDiverged, "diverged"},      {SweepStatus::kFailed, "failed"},
      {SweepStatus::kInterrupted, "interrupted"}};
  for (const auto& [status, name] : names) {
    EXPECT_EQ(toString(status), name);
    EXPECT_EQ(parseSweepStatus(name), status);
  }
  EXPECT_THROW(parseSweepStatus("Reached"), InputError);
}

TEST(SweepStatus, APointIsDoneOnlyOnceItsRunEnded) {
  SweepPoint p;
  EXPECT_FALSE(p.done());
  for (SweepStatus s : {SweepStatus::kReached, SweepStatus::kMissed, SweepStatus::kDiverged,
                        SweepStatus::kFailed}) {
    p.status = s;
    EXPECT_TRUE(p.done()) << toString(s);
  }
  for (SweepStatus s : {SweepStatus::kRunning, SweepStatus::kInterrupted}) {
    p.status = s;
    EXPECT_FALSE(p.done()) << toString(s);
  }
  p.status = SweepStatus::kMissed;
  EXPECT_EQ(nlohmann::json::parse(sweepPointToJson(p))["status"], "missed");
}

TEST(SweepSpec, RoundTripsWithTheStoredNames) {
  SweepSpec spec;
  ExperimentConfig c;
  c.data = "blobs";
  c.micro_batch = 4;
  spec.config = c;
  spec.target.kind = SweepTarget::Kind::kValAccuracy;
  spec.target.value = 0.8;
  spec.target.smoothing = 0.5;
  spec.jobs = 3;
  spec.lesson = "critical-batch";
  const std::string text = sweepSpecToJson(spec);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["target"]["kind"], "val_accuracy");
  EXPECT_EQ(j["target"]["value"], 0.8);
  EXPECT_EQ(j["jobs"], 3);
  EXPECT_EQ(j["lesson"], "critical-batch");
  EXPECT_EQ(j["config"]["data"], "blobs");
  const SweepSpec back = sweepSpecFromJson(text, "the spec");
  ASSERT_TRUE(back.config.has_value());
  EXPECT_EQ(back.config->data, "blobs");
  EXPECT_EQ(back.config->micro_batch, 4);
  EXPECT_EQ(back.target.kind, SweepTarget::Kind::kValAccuracy);
  EXPECT_DOUBLE_EQ(back.target.value, 0.8);
  EXPECT_DOUBLE_EQ(back.target.smoothing, 0.5);
  EXPECT_EQ(back.jobs, 3);
  EXPECT_EQ(back.lesson, "critical-batch");
  EXPECT_DOUBLE_EQ(sweepTargetFromSpec(text).value, 0.8);
}

TEST(SweepSpec, AHandWrittenSpecKeepsTheDefaults) {
  const SweepSpec spec = sweepSpecFromJson(R"({"target": {"kind": "loss", "value": 0.5}})", "x");
  EXPECT_FALSE(spec.config.has_value());
  EXPECT_EQ(spec.target.kind, SweepTarget::Kind::kLoss);
  EXPECT_DOUBLE_EQ(spec.target.value, 0.5);
  EXPECT_DOUBLE_EQ(spec.target.smoothing, 0.9);
  EXPECT_EQ(spec.jobs, 1);
  EXPECT_THROW(sweepSpecFromJson("[1]", "sweep 3"), InputError);
  EXPECT_THROW(sweepSpecFromJson(R"({"config": {"micro_batch": "eight"}})", "sweep 3"), InputError);
  EXPECT_TRUE(std::isnan(sweepTargetFromSpec("not json").value));
}

TEST(SweepSpec, TellsTheArmItsPointsTrain) {
  SweepSpec spec;
  spec.config = ExperimentConfig{};
  spec.config->arms = {ArmKind::kAccum};
  EXPECT_EQ(sweepArmFromSpec(sweepSpecToJson(spec)), ArmKind::kAccum);
  spec.config->arms = {ArmKind::kPitfallSum};
  EXPECT_EQ(sweepArmFromSpec(sweepSpecToJson(spec)), ArmKind::kPitfallSum);
  // Anything else reads as accum, and never throws.
  EXPECT_EQ(sweepArmFromSpec("not json"), ArmKind::kAccum);
  EXPECT_EQ(sweepArmFromSpec(R"({"config": {"arms": ["nosuch"]}})"), ArmKind::kAccum);
  EXPECT_EQ(sweepArmFromSpec(R"({"target": {"kind": "loss", "value": 0.5}})"), ArmKind::kAccum);
}

}  // namespace
}  // namespace accumlab
