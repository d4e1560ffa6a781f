// SPDX-License-Identifier: GPL-3.0-or-later
// A run that crashes after a checkpoint and is resumed from it continues as if it had never
// stopped: the same records after the checkpoint and the same final weights, to the bit
// (docs/store.md, "--resume"). One measurement differs on purpose: the resumed run checks the
// gradient of its first accum window after the resume (a restored state is where a resume
// would go wrong), which the uninterrupted run, having no resume, checks only if it falls on
// the interval. The check leaves training untouched, so everything it could change is
// compared to the bit; only that one step's check and the tallies it enters may differ.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>

#include "accumlab/input_error.h"
#include "accumlab/trainer.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

ExperimentConfig resumableExperiment(DType dtype) {
  ExperimentConfig c;
  c.data = "spirals";
  c.model = "mlp";
  c.micro_batch = 8;
  c.accum = 4;
  c.samples = 6000;
  c.epochs = 0;
  c.eval_every = 1500;
  c.probe_repeats = 16;
  c.probe_every = 2000;
  c.grad_check_every = 3;
  c.dtype = dtype;
  c.threads = 1;
  c.optimizer.kind = OptimizerKind::kAdamW;
  c.optimizer.lr = 3e-3;
  c.optimizer.weight_decay = 0.01;
  c.optimizer.schedule = LrSchedule::kCosine;
  c.optimizer.warmup_samples = 500;
  return c;
}

/// The same number, NaN equal to NaN.
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

/// Every field that does not depend on the clock.
void expectSameStep(const StepRecord& a, const StepRecord& b) {
  SCOPED_TRACE(toString(a.arm) + " step " + std::to_string(a.step));
  EXPECT_EQ(a.samples_seen, b.samples_seen);
  EXPECT_EQ(a.micro_batch, b.micro_batch);
  EXPECT_EQ(a.accum, b.accum);
  EXPECT_EQ(a.window_samples, b.window_samples);
  for (const auto& [name, x, y] :
       {std::tuple<const char*, double, double>{"loss", a.loss, b.loss},
        {"mb_loss_var", a.mb_loss_var, b.mb_loss_var},
        {"grad_norm", a.grad_norm, b.grad_norm},
        {"lr", a.lr, b.lr},
        {"trace_sigma_ema", a.trace_sigma_ema, b.trace_sigma_ema},
        {"b_simple", a.b_simple, b.b_simple},
        {"loss_var_detrended", a.loss_var_detrended, b.loss_var_detrended},
        {"weight_rel_diff", a.weight_rel_diff, b.weight_rel_diff},
        {"grad_equiv", a.grad_equiv, b.grad_equiv}}) {
    EXPECT_TRUE(same(x, y)) << name << ": " << x << " vs " << y;
  }
  EXPECT_EQ(a.loss_var_count, b.loss_var_count);
  EXPECT_EQ(a.probe, b.probe);
}

/// Stops the run with an exception, as a crash would, at the first step past `at` samples.
class Crash : public testing::RecordingSink {
 public:
  explicit Crash(int64_t at) : at_(at) {}
  void onStep(const StepRecord& r) override {
    RecordingSink::onStep(r);
    if (r.samples_seen > at_) throw InputError("crash");
  }

 private:
  int64_t at_;
};

class ResumeTest : public ::testing::TestWithParam<DType> {
 protected:
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_ = "/tmp/accumlab-resume-test-" + std::to_string(::getpid()) + ".pt";
};

TEST_P(ResumeTest, ContinuesBitForBitAfterACrash) {
  const ExperimentConfig config = resumableExperiment(GetParam());
  testing::RecordingSink whole;
  const RunSummary uninterrupted = Trainer(config).run(whole);

  for (int64_t crash_at : {1900, 3333}) {
    SCOPED_TRACE("crash after sample " + std::to_string(crash_at));
    std::remove(path_.c_str());
    {
      Crash crash(crash_at);
      Trainer first(config);
      first.checkpointEvery(1000, [this] { return path_; });
      EXPECT_THROW(first.run(crash), InputError);
    }
    ASSERT_EQ(::access(path_.c_str(), F_OK), 0) << "a crash leaves the last checkpoint";

    testing::RecordingSink rest;
    Trainer again(config);
    again.resumeFrom(path_);
    const RunSummary resumed = again.run(rest);
    EXPECT_GT(rest.info.resumed_after_ms, 0);
    ASSERT_FALSE(rest.steps.empty());

    // Every step after the checkpoint is the uninterrupted run's step, field for field, but
    // for the gradient check of the first accum window after the resume.
    std::map<std::pair<ArmKind, int64_t>, StepRecord> reference;
    for (const StepRecord& r : whole.steps) reference[{r.arm, r.step}] = r;
    const int64_t first_resumed = rest.of(ArmKind::kAccum).front().step;
    EXPECT_TRUE(std::isfinite(rest.of(ArmKind::kAccum).front().grad_equiv))
        << "the first window after the resume was not checked";
    for (const StepRecord& r : rest.steps) {
      const auto it = reference.find({r.arm, r.step});
      ASSERT_NE(it, reference.end());
      StepRecord expected = it->second;
      if (r.arm == ArmKind::kAccum && r.step == first_resumed && std::isnan(expected.grad_equiv)) {
        expected.grad_equiv = r.grad_equiv;  // checked because of the resume only
      }
      expectSameStep(r, expected);
      EXPECT_GE(r.wall_ms, rest.info.resumed_after_ms);
    }
    // The accum arm's checks: the uninterrupted run's before the resume, the resumed run's after.
    GradCheckTally checks;
    for (const StepRecord& r : whole.of(ArmKind::kAccum)) {
      if (r.step < first_resumed) checks.add(r, config.accum);
    }
    for (const StepRecord& r : rest.of(ArmKind::kAccum)) checks.add(r, config.accum);
    // Nothing is missing: each arm's resumed steps run on to the end without a gap.
    for (ArmKind arm : config.arms) {
      const auto mine = rest.of(arm);
      const auto all = whole.of(arm);
      ASSERT_FALSE(mine.empty());
      EXPECT_EQ(mine.back().step, all.back().step);
      for (size_t i = 1; i < mine.size(); ++i) EXPECT_EQ(mine[i].step, mine[i - 1].step + 1);
      // The checkpoint was at most 1000 samples (plus a window) behind the crash.
      EXPECT_LE(mine.front().samples_seen, crash_at + config.micro_batch * config.accum);
      EXPECT_GT(mine.front().samples_seen, crash_at - 1000 - config.micro_batch * config.accum);
    }
    ASSERT_EQ(resumed.arms.size(), uninterrupted.arms.size());
    for (size_t i = 0; i < resumed.arms.size(); ++i) {
      const ArmSummary& a = resumed.arms[i];
      const ArmSummary& b = uninterrupted.arms[i];
      SCOPED_TRACE(toString(a.arm));
      EXPECT_EQ(a.weights_digest, b.weights_digest) << "the final weights differ";
      EXPECT_EQ(a.steps, b.steps);
      EXPECT_TRUE(same(a.val_loss, b.val_loss));
      EXPECT_TRUE(same(a.final_train_loss, b.final_train_loss));
      EXPECT_TRUE(same(a.loss_variance_detrended, b.loss_variance_detrended));
      EXPECT_TRUE(same(a.b_simple, b.b_simple));
      // The gradient checks as the records say (the uninterrupted run's tally is one too).
      ArmSummary expected = b;
      if (a.arm == ArmKind::kAccum) {
        setGradChecks(expected, checks);
        EXPECT_GE(expected.grad_equivalence_checks, b.grad_equivalence_checks);
        EXPECT_LE(expected.grad_equivalence_checks, b.grad_equivalence_checks + 1);
      }
      EXPECT_TRUE(same(a.grad_equivalence_rel_diff, expected.grad_equivalence_rel_diff));
      EXPECT_EQ(a.grad_equivalence_checks, expected.grad_equivalence_checks);
      EXPECT_EQ(a.grad_equivalence_kinks, expected.grad_equivalence_kinks);
      EXPECT_TRUE(same(a.grad_equivalence_largest_kink, expected.grad_equivalence_largest_kink));
      EXPECT_TRUE(same(a.grad_equivalence_rel_diff_without_kinks,
                       expected.grad_equivalence_rel_diff_without_kinks));
      EXPECT_TRUE(same(a.equivalence_rel_diff, b.equivalence_rel_diff));
    }
    ASSERT_TRUE(resumed.variance_probe.has_value());
    EXPECT_EQ(resumed.variance_probes, uninterrupted.variance_probes);
    EXPECT_TRUE(same(resumed.variance_probe->ratio, uninterrupted.variance_probe->ratio));
    // A run that ends removes its checkpoint: there is nothing left to resume.
    EXPECT_NE(::access(path_.c_str(), F_OK), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Resume, ResumeTest, ::testing::Values(DType::kFloat32, DType::kFloat64),
                         [](const auto& info) { return toString(info.param); });

TEST(Resume, RefusesACheckpointOfAnotherExperimentOrAMissingOne) {
  const std::string path = "/tmp/accumlab-resume-other-" + std::to_string(::getpid()) + ".pt";
  ExperimentConfig config = resumableExperiment(DType::kFloat32);
  {
    Crash crash(1500);
    Trainer first(config);
    first.checkpointEvery(1000, [&] { return path; });
    EXPECT_THROW(first.run(crash), InputError);
  }
  config.seed = 7;
  testing::RecordingSink sink;
  Trainer other(config);
  other.resumeFrom(path);
  try {
    other.run(sink);
    ADD_FAILURE() << "resumed another experiment's checkpoint";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to another experiment"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
  Trainer missing(config);
  missing.resumeFrom(path);
  EXPECT_THROW(missing.run(sink), InputError);
}

}  // namespace
}  // namespace accumlab
