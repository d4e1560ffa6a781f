// SPDX-License-Identifier: GPL-3.0-or-later
// The LR-scaling hint (ui/series/lr_hint.cpp): accum with K ≥ 4 at no-accum's learning rate
// that lags no-accum gets a hint to scale the LR; otherwise nothing is said.
#include <QTest>

#include "series/lr_hint.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

/// A live run of no-accum (m = 8) and accum (8 × K): no-accum's loss falls as 1/(1+s/4096),
/// accum's as that times `lag` (1: as fast).
RunData run(int64_t k, double lag, size_t accum_updates, LrScaling scaling = LrScaling::kNone) {
  RunData r;
  r.info.config.micro_batch = 8;
  r.info.config.accum = k;
  r.info.config.optimizer.scaling = scaling;
  const int64_t samples = static_cast<int64_t>(accum_updates) * 8 * k;
  for (int64_t s = 8, step = 1; s <= samples; s += 8, ++step) {
    StepRecord x;
    x.arm = ArmKind::kNoAccum;
    x.step = step;
    x.samples_seen = s;
    x.micro_batch = 8;
    x.accum = 1;
    x.loss = 1.0 / (1.0 + static_cast<double>(s) / 4096);
    r.arm(ArmKind::kNoAccum).steps.push_back(x);
  }
  for (int64_t s = 8 * k, step = 1; s <= samples; s += 8 * k, ++step) {
    StepRecord x;
    x.arm = ArmKind::kAccum;
    x.step = step;
    x.samples_seen = s;
    x.micro_batch = 8;
    x.accum = k;
    x.loss = lag / (1.0 + static_cast<double>(s) / 4096);
    r.arm(ArmKind::kAccum).steps.push_back(x);
  }
  return r;
}

}  // namespace

class LrHintTest : public QObject {
  Q_OBJECT

 private slots:
  void aLaggingAccumArmGetsTheHint() {
    const QString hint = lrScalingHint(run(8, 1.5, 200));
    QVERIFY2(hint.contains("linear (×8)") && hint.contains("sqrt (×2.83)"), qPrintable(hint));
  }

  void nothingWhenAccumKeepsUpOrScalesOrIsSmall() {
    QVERIFY(lrScalingHint(run(8, 1.05, 200)).isEmpty());                   // within 15% of no-accum
    QVERIFY(lrScalingHint(run(8, 1.5, 200, LrScaling::kSqrt)).isEmpty());  // already scaled
    QVERIFY(lrScalingHint(run(2, 1.5, 200)).isEmpty());                    // K too small to matter
    QVERIFY(lrScalingHint(run(8, 1.5, kHintMinUpdates - 1)).isEmpty());    // too early to say
  }
};

QTEST_MAIN(LrHintTest)
#include "lr_hint_test.moc"
