// Arms trained at once on their own threads (config.arm_threads) give the same numbers, to
// the bit, as arms trained one after another on the sample clock.
#include <gtest/gtest.h>

#include <cmath>

#include "accumlab/trainer.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

struct Trained {
  RunSummary summary;
  testing::RecordingSink sink;
};

Trained train(int arm_threads) {
  ExperimentConfig c;
  c.data = "blobs";
  c.synthetic_samples = 2000;
  c.model = "mlp:32";
  c.micro_batch = 8;
  c.accum = 4;
  c.arms = {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch, ArmKind::kPitfallSum};
  c.samples = 6000;
  c.epochs = 0;
  c.eval_every = 1000;
  c.grad_check_every = 5;
  c.probe_repeats = 20;
  c.probe_every = 2000;
  c.threads = 1;
  c.arm_threads = arm_threads;
  Trained t;
  Trainer trainer(c);
  t.summary = trainer.run(t.sink);
  return t;
}

TEST(ParallelArms, TrainTheSameNumbersAsOneAfterAnother) {
  const Trained one = train(1);
  const Trained two = train(2);
  ASSERT_EQ(one.summary.arms.size(), two.summary.arms.size());
  for (size_t i = 0; i < one.summary.arms.size(); ++i) {
    const ArmSummary& a = one.summary.arms[i];
    const ArmSummary& b = two.summary.arms[i];
    EXPECT_EQ(a.weights_digest, b.weights_digest) << toString(a.arm);
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_EQ(a.final_train_loss, b.final_train_loss) << toString(a.arm);
    EXPECT_EQ(a.val_loss, b.val_loss) << toString(a.arm);
    EXPECT_EQ(a.grad_equivalence_checks, b.grad_equivalence_checks);
    // accum and big-batch are paired after every window, in both ways of training.
    EXPECT_TRUE(a.equivalence_rel_diff == b.equivalence_rel_diff ||
                (std::isnan(a.equivalence_rel_diff) && std::isnan(b.equivalence_rel_diff)))
        << toString(a.arm);
    const auto sa = one.sink.of(a.arm), sb = two.sink.of(a.arm);
    ASSERT_EQ(sa.size(), sb.size());
    for (size_t s = 0; s < sa.size(); ++s) {
      EXPECT_EQ(sa[s].loss, sb[s].loss);
      EXPECT_EQ(sa[s].grad_norm, sb[s].grad_norm);
    }
  }
  ASSERT_EQ(one.sink.probes.size(), two.sink.probes.size());
  ASSERT_FALSE(one.sink.probes.empty());
  EXPECT_EQ(one.sink.probes.back().ratio, two.sink.probes.back().ratio);
  EXPECT_EQ(one.sink.evals.size(), two.sink.evals.size());
}

}  // namespace
}  // namespace accumlab
