// SPDX-License-Identifier: GPL-3.0-or-later
// LR scaling, schedules and warm-up through the Trainer: the LR each arm actually used at
// each step, against the schedules of docs/cli.md, all arms on one curve in samples seen.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "accumlab/trainer.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

using testing::RecordingSink;

constexpr double kBaseLr = 0.04;
constexpr int64_t kScheduleM = 8;
constexpr int64_t kScheduleK = 4;
constexpr int64_t kBudget = 2400;

ExperimentConfig scheduleConfig() {
  ExperimentConfig c;
  c.data = "blobs:16";
  c.synthetic_samples = 1000;
  c.model = "logreg";
  c.micro_batch = kScheduleM;
  c.accum = kScheduleK;
  c.optimizer.lr = kBaseLr;
  c.samples = kBudget;
  c.eval_every = kBudget;
  c.noise_stats = false;
  c.device = "cpu";
  return c;
}

/// Checks every step of every arm: the LR it used equals the arm's scaled LR times
/// factor(first sample of its window).
void expectLrCurve(const ExperimentConfig& c, double scale_of_k,
                   const std::function<double(int64_t)>& factor) {
  RecordingSink sink;
  Trainer(c).run(sink);
  ASSERT_FALSE(sink.steps.empty());
  for (const StepRecord& r : sink.steps) {
    const double scale = r.arm == ArmKind::kNoAccum ? 1.0 : scale_of_k;
    const int64_t start = r.samples_seen - r.window_samples;
    ASSERT_NEAR(r.lr, kBaseLr * scale * factor(start), 1e-15)
        << toString(r.arm) << " step " << r.step << " from sample " << start;
  }
}

TEST(LrSchedule, SqrtScalingMultipliesAccumAndBigBatchBySqrtK) {
  ExperimentConfig c = scheduleConfig();
  c.optimizer.scaling = LrScaling::kSqrt;
  expectLrCurve(c, std::sqrt(static_cast<double>(kScheduleK)), [](int64_t) { return 1.0; });
}

TEST(LrSchedule, LinearScalingMultipliesByK) {
  ExperimentConfig c = scheduleConfig();
  c.optimizer.scaling = LrScaling::kLinear;
  expectLrCurve(c, static_cast<double>(kScheduleK), [](int64_t) { return 1.0; });
}

TEST(LrSchedule, StepScheduleDecaysEveryPeriodOfSamples) {
  ExperimentConfig c = scheduleConfig();
  c.optimizer.schedule = LrSchedule::kStep;
  c.optimizer.step_every_samples = 640;
  c.optimizer.step_gamma = 0.5;
  expectLrCurve(c, 1.0, [](int64_t s) { return std::pow(0.5, static_cast<double>(s / 640)); });
}

TEST(LrSchedule, CosineScheduleFollowsSamplesSeen) {
  ExperimentConfig c = scheduleConfig();
  c.optimizer.schedule = LrSchedule::kCosine;
  expectLrCurve(c, 1.0, [](int64_t s) {
    return 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(s) / kBudget));
  });
}

TEST(LrSchedule, WarmUpRampsLinearlyThenHandsOverToTheSchedule) {
  ExperimentConfig c = scheduleConfig();
  c.optimizer.schedule = LrSchedule::kCosine;
  c.optimizer.scaling = LrScaling::kLinear;
  c.optimizer.warmup_samples = 500;
  expectLrCurve(c, static_cast<double>(kScheduleK), [](int64_t s) {
    const double cosine = 0.5 * (1.0 + std::cos(M_PI * static_cast<double>(s) / kBudget));
    return s < 500 ? cosine * (static_cast<double>(s) + 1.0) / 500.0 : cosine;
  });
}

}  // namespace
}  // namespace accumlab
