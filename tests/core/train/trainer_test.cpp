// SPDX-License-Identifier: GPL-3.0-or-later
// Trainer behaviour: variance reduction, determinism, controls, divergence.
#include "accumlab/trainer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "accumlab/input_error.h"
#include "recording_sink.h"
#include "train/window_plan.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::RecordingSink;

ExperimentConfig smallConfig() {
  ExperimentConfig c;
  c.data = "blobs";
  c.synthetic_samples = 4000;
  c.model = "mlp:32";
  c.micro_batch = 8;
  c.accum = 4;
  c.samples = 8000;
  c.eval_every = 2000;
  c.device = "cpu";
  return c;
}

TEST(Trainer, LossVarianceFallsByKOnIidData) {
  // At lr = 0 the per-update losses are iid means of m and m·K samples: their variance
  // ratio is K. W = 2000 updates makes the estimate's relative error ~5%; bound 25%.
  ExperimentConfig c = smallConfig();
  c.synthetic_samples = 20000;
  c.accum = 4;
  c.arms = {ArmKind::kNoAccum, ArmKind::kAccum};
  c.optimizer.lr = 0.0;
  c.variance_window = 2000;
  c.samples = 2000 * 8 * 4;
  c.noise_stats = false;
  Trainer trainer(c);
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  const double ratio =
      armOf(s, ArmKind::kNoAccum).loss_variance / armOf(s, ArmKind::kAccum).loss_variance;
  EXPECT_NEAR(ratio, 4.0, 0.25 * 4.0);
}

TEST(Trainer, SameSeedGivesIdenticalRecords) {
  auto once = [] {
    Trainer trainer(smallConfig());
    RecordingSink sink;
    trainer.run(sink);
    return sink;
  };
  const RecordingSink a = once(), b = once();
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    ASSERT_EQ(a.steps[i].arm, b.steps[i].arm);
    ASSERT_EQ(a.steps[i].samples_seen, b.steps[i].samples_seen);
    ASSERT_EQ(a.steps[i].loss, b.steps[i].loss) << "step " << i;  // bitwise
    ASSERT_EQ(a.steps[i].grad_norm, b.steps[i].grad_norm);
  }
  ASSERT_EQ(a.evals.size(), b.evals.size());
  for (size_t i = 0; i < a.evals.size(); ++i) ASSERT_EQ(a.evals[i].loss, b.evals[i].loss);
}

TEST(Trainer, ArmsStartIdenticalAndAdvanceTogether) {
  ExperimentConfig c = smallConfig();
  c.dtype = DType::kFloat64;
  Trainer trainer(c);
  RecordingSink sink;
  trainer.run(sink);
  // Accum and big-batch see the very same samples from the same weights at every step: the
  // same window, the same loss (to float64 rounding), the same LR.
  const auto accum = sink.of(ArmKind::kAccum), big = sink.of(ArmKind::kBigBatch);
  ASSERT_EQ(accum.size(), big.size());
  ASSERT_EQ(static_cast<int64_t>(accum.size()), c.samples / 32);
  for (size_t i = 0; i < accum.size(); ++i) {
    ASSERT_EQ(accum[i].step, static_cast<int64_t>(i) + 1);
    ASSERT_EQ(accum[i].samples_seen, big[i].samples_seen) << "step " << i + 1;
    ASSERT_EQ(accum[i].window_samples, 32);
    ASSERT_NEAR(accum[i].loss, big[i].loss, 1e-12) << "step " << i + 1;
    ASSERT_EQ(accum[i].lr, big[i].lr);
  }
  // No-accum takes every micro-batch of the same stream: 8 samples a step.
  const auto no_accum = sink.of(ArmKind::kNoAccum);
  for (size_t i = 0; i < no_accum.size(); ++i) {
    ASSERT_EQ(no_accum[i].samples_seen, 8 * static_cast<int64_t>(i + 1));
  }
  // Round-robin: no arm is ever more than one window ahead of another.
  int64_t seen[3] = {0, 0, 0};
  for (const auto& s : sink.steps) {
    seen[static_cast<int>(s.arm)] = s.samples_seen;
    const int64_t lo = std::min({seen[0], seen[1], seen[2]});
    ASSERT_LE(s.samples_seen - lo, 2 * 32) << "arm " << toString(s.arm) << " ran ahead";
  }
}

TEST(Trainer, AccumChangeLandsOnAWindowBoundary) {
  ExperimentConfig c = smallConfig();
  Trainer trainer(c);
  RecordingSink sink;
  bool requested = false;
  sink.on_step = [&](const StepRecord& r) {
    if (r.arm == ArmKind::kAccum && r.step == 20 && !requested) {
      trainer.requestAccum(2);
      requested = true;
    }
  };
  trainer.run(sink);
  const auto accum = sink.of(ArmKind::kAccum);
  int64_t prev = 0;
  bool switched = false;
  for (const auto& r : accum) {
    // Every update is a whole window: samples advance by exactly the window's size.
    ASSERT_EQ(r.samples_seen - prev, r.window_samples);
    if (r.step <= 20) {
      ASSERT_EQ(r.window_samples, 8 * 4);
    }
    if (r.accum == 2) switched = true;
    if (switched && r.samples_seen < c.samples) {
      ASSERT_EQ(r.window_samples, 8 * 2);
    }
    prev = r.samples_seen;
  }
  EXPECT_TRUE(switched);
  // Big-batch follows m·K: 16 after the change.
  EXPECT_EQ(sink.of(ArmKind::kBigBatch).back().micro_batch, 16);
  bool event = false;
  for (const auto& e : sink.events) {
    event |=
        e.kind == EventKind::kAccum && e.message.rfind("K 4 → 2 for all arms at sample ", 0) == 0;
  }
  EXPECT_TRUE(event);
  // Big-batch switches at the same sample as accum, so the pair stays level.
  const auto big = sink.of(ArmKind::kBigBatch);
  ASSERT_EQ(big.size(), accum.size());
  for (size_t i = 0; i < big.size(); ++i) {
    ASSERT_EQ(big[i].samples_seen, accum[i].samples_seen) << "step " << i + 1;
  }
  EXPECT_TRUE(std::isfinite(big.back().weight_rel_diff));
}

TEST(Trainer, RunsOnlyOnce) {
  ExperimentConfig c = smallConfig();
  c.samples = 64;
  Trainer trainer(c);
  RecordingSink sink;
  trainer.run(sink);
  EXPECT_THROW(trainer.run(sink), std::logic_error);
}

TEST(Trainer, SaysWhereTheTrajectoriesPartedFromRounding) {
  // Spirals at lr 0.1: in float32 a rounding difference tips an activation over a ReLU's 0
  // and the arms part; float64 keeps them together far longer (on some CPUs to the end, on
  // others a float64 rounding tips one too, hundreds of updates later).
  int64_t parted_f32 = -1;
  for (const DType dtype : {DType::kFloat32, DType::kFloat64}) {
    ExperimentConfig c = smallConfig();
    c.data = "spirals";
    c.model = "mlp:64";
    c.optimizer.lr = 0.1;
    c.samples = 20000;
    c.eval_every = 20000;
    c.dtype = dtype;
    c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
    Trainer trainer(c);
    RecordingSink sink;
    const RunSummary summary = trainer.run(sink);
    int64_t expected = -1;
    for (const auto& r : sink.of(ArmKind::kBigBatch)) {
      if (r.weight_rel_diff > roundingLevel(dtype)) {
        expected = r.step;
        break;
      }
    }
    if (dtype == DType::kFloat32) {
      EXPECT_GT(expected, 1) << "the float32 run was meant to part";
      parted_f32 = expected;
    } else if (expected != -1) {
      EXPECT_GT(expected, 2 * parted_f32) << "float64 parted about as early as float32";
    }
    EXPECT_EQ(armOf(summary, ArmKind::kAccum).trajectories_parted_at_step, expected);
    EXPECT_EQ(armOf(summary, ArmKind::kBigBatch).trajectories_parted_at_step, expected);
  }
}

TEST(Trainer, NoiseProbeWindowsAreMarkedAndKeptOutOfMicroBatchStatistics) {
  ExperimentConfig c = smallConfig();
  c.samples = 1600;
  Trainer trainer(c);
  RecordingSink sink;
  trainer.run(sink);
  for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kBigBatch}) {
    const auto records = sink.of(arm);
    int probes = 0;
    for (const auto& r : records) {
      // Every kNoiseProbeEvery-th window of a K = 1 arm is a probe, and only probes measure
      // noise.
      EXPECT_EQ(r.probe, r.step % kNoiseProbeEvery == 0) << toString(arm) << " step " << r.step;
      EXPECT_EQ(r.probe, std::isfinite(r.g_small_sq)) << toString(arm) << " step " << r.step;
      EXPECT_EQ(r.accum, 1);
      EXPECT_EQ(r.mb_loss_var, 0.0) << toString(arm) << " step " << r.step;
      EXPECT_EQ(r.mb_loss_mean, r.loss) << toString(arm) << " step " << r.step;
      probes += r.probe;
    }
    EXPECT_EQ(probes, static_cast<int>(records.size() / kNoiseProbeEvery));
  }
  for (const auto& r : sink.of(ArmKind::kAccum)) {
    EXPECT_FALSE(r.probe);
    EXPECT_TRUE(std::isfinite(r.g_small_sq));
    EXPECT_GT(r.mb_loss_var, 0.0);
  }
}

TEST(Trainer, SummaryNoisePerUpdateUsesTheArmsEffectiveBatch) {
  // 933 samples, 2 epochs, stream: the last window has 1866 − 29·64 = 10 samples. The
  // summary's trΣ/B_eff is for the arm's m·K = 64, not for that short window.
  ExperimentConfig c = smallConfig();
  c.synthetic_samples = 933;
  c.val_fraction = 0;
  c.micro_batch = 16;
  c.accum = 4;
  c.samples = 0;
  c.epochs = 2;
  Trainer trainer(c);
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  for (ArmKind arm : {ArmKind::kAccum, ArmKind::kBigBatch, ArmKind::kNoAccum}) {
    const auto records = sink.of(arm);
    const StepRecord& last = records.back();
    const double b_eff = arm == ArmKind::kNoAccum ? 16.0 : 64.0;
    const double expected = last.trace_sigma_ema / b_eff;
    EXPECT_NEAR(armOf(s, arm).noise_per_update, expected, 1e-12 * std::abs(expected))
        << toString(arm);
  }
  // of() returns a copy: keep it alive while `last` refers into it.
  const auto accum_records = sink.of(ArmKind::kAccum);
  const StepRecord& last = accum_records.back();
  ASSERT_EQ(last.window_samples, 10);
  EXPECT_NEAR(last.noise_per_update, last.trace_sigma_ema / 10.0, 1e-12 * last.noise_per_update);
}

TEST(Trainer, ClippingRecordsBothNorms) {
  ExperimentConfig c = smallConfig();
  c.samples = 640;
  c.optimizer.clip_norm = 0.05;
  Trainer trainer(c);
  RecordingSink sink;
  trainer.run(sink);
  int clipped = 0;
  for (const auto& r : sink.steps) {
    EXPECT_LE(r.grad_norm_applied, r.grad_norm * (1 + 1e-12));
    if (r.grad_norm > 0.05) {
      EXPECT_NEAR(r.grad_norm_applied, 0.05, 1e-5);
      ++clipped;
    } else {
      EXPECT_EQ(r.grad_norm_applied, r.grad_norm);
    }
  }
  EXPECT_GT(clipped, 0) << "clipping never engaged";
}

TEST(Trainer, PauseResumeStopFromAnotherThread) {
  ExperimentConfig c = smallConfig();
  c.samples = 2'000'000;  // long enough to be stopped
  Trainer trainer(c);
  RecordingSink sink;
  std::thread controller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    trainer.requestPause();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    trainer.requestMicroBatch(16);
    trainer.requestResume();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    trainer.requestStop();
  });
  const RunSummary s = trainer.run(sink);
  controller.join();
  for (const auto& a : s.arms) {
    EXPECT_EQ(a.status, ArmStatus::kStopped);
    EXPECT_LT(a.samples_seen, c.samples);
  }
  std::vector<std::string> kinds;
  for (const auto& e : sink.events) kinds.push_back(toString(e.kind));
  EXPECT_EQ(kinds, (std::vector<std::string>{"pause", "resume", "micro_batch", "stop"}));
  // The change landed (the sliders' promise), for all arms at one position.
  EXPECT_EQ(sink.of(ArmKind::kNoAccum).back().micro_batch, 16);
}

TEST(Trainer, HugeLearningRateDivergesWithoutCrashing) {
  ExperimentConfig c = smallConfig();
  c.optimizer.lr = 1e8;
  c.optimizer.momentum = 0;
  Trainer trainer(c);
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  int diverged = 0;
  for (const auto& a : s.arms) {
    if (a.status == ArmStatus::kDiverged) {
      ++diverged;
      EXPECT_GT(a.diverged_at_step, 0);
      EXPECT_NE(a.message.find("lower the learning rate"), std::string::npos);
    }
  }
  EXPECT_GE(diverged, 1);
}

TEST(Trainer, BadConfigIsAnInputError) {
  ExperimentConfig c = smallConfig();
  c.micro_batch = 0;
  RecordingSink sink;
  EXPECT_THROW(Trainer(c).run(sink), InputError);
  c = smallConfig();
  c.model = "cnn";  // blobs samples are flat vectors
  EXPECT_THROW(Trainer(c).run(sink), InputError);
}

TEST(Trainer, LinearScalingMultipliesTheLargeBatchLr) {
  ExperimentConfig c = smallConfig();
  c.optimizer.scaling = LrScaling::kLinear;
  c.samples = 640;
  Trainer trainer(c);
  RecordingSink sink;
  trainer.run(sink);
  EXPECT_DOUBLE_EQ(sink.of(ArmKind::kNoAccum)[0].lr, c.optimizer.lr);
  EXPECT_DOUBLE_EQ(sink.of(ArmKind::kAccum)[0].lr, 4 * c.optimizer.lr);
  EXPECT_DOUBLE_EQ(sink.of(ArmKind::kBigBatch)[0].lr, 4 * c.optimizer.lr);
}

}  // namespace
}  // namespace accumlab
