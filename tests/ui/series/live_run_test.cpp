// SPDX-License-Identifier: GPL-3.0-or-later
// LiveRun: the live run's history lives outside the views; the shown runs (and so the plots)
// and the status bar follow it.
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include "plots/pane_readouts.h"
#include "plots/plot_grid.h"
#include "series/live_run.h"
#include "series/shown_runs.h"
#include "ui_test_support.h"
#include "window/run_status_bar.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {
/// `n` no-accum and accum steps from step `from`, 8 samples each, budget 800 samples.
RecordBatch stepsBatch(int from, int n, bool started) {
  RecordBatch b;
  if (started) {
    RunInfo info;
    info.budget_samples = 800;
    info.config.arms = {ArmKind::kNoAccum, ArmKind::kAccum};
    b.started = info;
  }
  for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kAccum}) {
    for (int i = from; i < from + n; ++i) {
      StepRecord r;
      r.arm = arm;
      r.step = i + 1;
      r.samples_seen = (i + 1) * 8;
      r.wall_ms = 10.0 * i;
      r.micro_batch = 8;
      r.accum = 1;
      r.loss = 1.0 / (i + 1);
      r.samples_per_s = 800;
      b.steps.push_back(r);
    }
  }
  return b;
}

ArmSummary summaryOf(ArmKind arm, ArmStatus status, int64_t samples) {
  ArmSummary s;
  s.arm = arm;
  s.status = status;
  s.samples_seen = samples;
  return s;
}
}  // namespace

class LiveRunTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void keepsTheHistoryAndSaysWhatArrived() {
    LiveRun live;
    QSignalSpy begun(&live, &LiveRun::begun);
    QSignalSpy appended(&live, &LiveRun::appended);
    QSignalSpy events(&live, &LiveRun::eventAdded);
    QSignalSpy arms(&live, &LiveRun::armEnded);
    QSignalSpy ended(&live, &LiveRun::ended);
    QVERIFY(!live.isRunning());

    live.begin("first");
    RecordBatch b = stepsBatch(0, 10, true);
    EventRecord e;
    e.kind = EventKind::kAccum;
    e.message = "K 1 → 2";
    b.events.push_back(e);
    live.append(b);
    QCOMPARE(begun.count(), 1);
    QCOMPARE(appended.count(), 1);
    QCOMPARE(events.count(), 1);
    QCOMPARE(live.data().label, std::string("first"));
    QCOMPARE(live.data().arms.size(), size_t{2});
    QCOMPARE(live.data().find(ArmKind::kAccum)->steps.size(), size_t{10});
    QCOMPARE(live.data().events.size(), size_t{1});
    QVERIFY(live.isRunning());

    RecordBatch last = stepsBatch(10, 5, false);
    last.arm_summaries.push_back(summaryOf(ArmKind::kAccum, ArmStatus::kFinished, 120));
    live.append(last);
    QCOMPARE(arms.count(), 1);
    QVERIFY(arms.front().front().value<ArmKind>() == ArmKind::kAccum);
    QVERIFY(live.data().find(ArmKind::kAccum)->has_summary);
    QCOMPARE(live.data().find(ArmKind::kNoAccum)->steps.size(), size_t{15});

    live.end(false);
    QCOMPARE(ended.count(), 1);
    QVERIFY(!live.isRunning());
    QCOMPARE(live.data().samplesSeen(), int64_t{120});  // kept until the next run begins

    live.begin("second");
    QCOMPARE(begun.count(), 2);
    QVERIFY(live.data().arms.empty());
    QVERIFY(live.data().events.empty());
    QCOMPARE(live.data().label, std::string("second"));
  }

  void plotsAndStatusBarFollowTheModelNotEachOther() {
    LiveRun live;
    ShownRuns shown;
    PlotGrid plots(&shown);
    RunStatusBar status;
    shown.setLiveRun(&live);
    status.setLiveRun(&live);

    live.begin("live");
    live.append(stepsBatch(0, 20, true));
    const int live_points = plots.pointCount();
    QVERIFY(live_points > 0);
    QCOMPARE(shown.runs().size(), size_t{1});
    QCOMPARE(shown.runs().front(), &live.data());
    QCOMPARE(status.progressPercent(), 20);  // 160 of 800 samples per arm

    // Stored runs on screen: the live run's next batch updates the status bar only.
    RunData stored = live.data();
    stored.label = "#1 stored";
    shown.showStored({stored, stored});
    const int stored_points = plots.pointCount();
    live.append(stepsBatch(20, 20, false));
    QCOMPARE(plots.pointCount(), stored_points);
    QCOMPARE(shown.runs().size(), size_t{2});
    QVERIFY(!shown.isLive());
    QCOMPARE(status.progressPercent(), 40);

    // A new live run takes the plots back, from its own history only.
    live.begin("next");
    QCOMPARE(plots.pointCount(), 0);
    live.append(stepsBatch(0, 20, true));
    QCOMPARE(plots.pointCount(), live_points);
    QCOMPARE(shown.runs().front(), &live.data());
    QVERIFY(shown.isLive());
  }

  void statusBarGivesTextArmsTheirTokensPerSecond() {
    LiveRun live;
    RunStatusBar status;
    status.setLiveRun(&live);
    live.begin("images");
    live.append(stepsBatch(0, 10, true));
    QVERIFY2(status.throughputText().contains("no-accum 800/s") &&
                 !status.throughputText().contains("tok/s"),
             qPrintable(status.throughputText()));
    QVERIFY(!status.throughputTip().contains("tokens"));
    // A text run: each arm's tokens/s beside its sequences/s, and the tooltip says which.
    live.begin("text");
    RecordBatch b = stepsBatch(0, 10, true);
    for (StepRecord& r : b.steps) r.tokens_per_s = 800 * (r.arm == ArmKind::kAccum ? 98.0 : 2.5);
    live.append(b);
    const QString text = status.throughputText();
    QVERIFY2(
        text.contains("no-accum 800/s · 2000 tok/s") && text.contains("accum 800/s · 78k tok/s"),
        qPrintable(text));
    QVERIFY2(status.throughputTip().contains("target tokens per second"),
             qPrintable(status.throughputTip()));
  }

  void throughputGivesGflopsAndTheShareOfTheMeasuredCeiling() {
    LiveRun live;
    RunStatusBar status;
    status.setLiveRun(&live);
    live.begin("live");
    RecordBatch b = stepsBatch(0, 10, true);
    // As the run starts, each arm's FLOPs per sample and measured ceiling: 800 samples/s ×
    // 10⁶ FLOPs = 0.80 GFLOP/s, half of the ceiling.
    for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kAccum}) {
      b.started->ceilings.push_back({arm, 1e6, 1.6, "GEMM 8×784 by 784×256"});
    }
    live.append(b);
    const QString sentence =
        "0.80 GFLOP/s, 50% of the measured ceiling (the GEMM 8×784 by 784×256 "
        "alone: 1.60 GFLOP/s on this machine)";
    QVERIFY2(status.throughputTip().contains("no-accum: " + sentence) &&
                 status.throughputTip().contains("accum: " + sentence),
             qPrintable(status.throughputTip()));
    PaneReadout r = throughputReadout(live.data());
    // One arm on the line (accum's), every arm in the tooltip.
    QVERIFY2(r.text == "GFLOP/s: accum <b>0.80</b> (50%)", qPrintable(r.text));
    QVERIFY2(r.more.contains(sentence), qPrintable(r.more));

    // The arm's summary: its whole run's figure, and a stored run's ceiling was measured where
    // it trained.
    RecordBatch end;
    ArmSummary a = summaryOf(ArmKind::kAccum, ArmStatus::kFinished, 800);
    a.flops_per_sample = 1e6;
    a.gflop_per_s = 39.0;
    a.ceiling_gflop_per_s = 53.4;
    a.ceiling_op = "GEMM 8×784 by 784×256";
    end.arm_summaries.push_back(a);
    live.append(end);
    RunData stored = live.data();
    stored.id_label = "run 4";
    r = throughputReadout(stored);
    QVERIFY2(r.text == "GFLOP/s: accum <b>39.0</b> (73%)", qPrintable(r.text));
    QVERIFY2(r.more.contains("39.0 GFLOP/s, 73% of the measured ceiling (the GEMM "
                             "8×784 by 784×256 alone: 53.4 GFLOP/s on the machine that trained "
                             "it)"),
             qPrintable(r.more));

    // A model that counts no FLOPs (a TorchScript file): no GFLOP/s anywhere.
    live.begin("scripted");
    live.append(stepsBatch(0, 10, true));
    QVERIFY(throughputReadout(live.data()).text.isEmpty());
    QVERIFY2(!status.throughputTip().contains("GFLOP"), qPrintable(status.throughputTip()));
  }

  void statusBarShowsHowTheRunEnded() {
    LiveRun live;
    RunStatusBar status;
    status.setLiveRun(&live);
    live.begin("live");
    RecordBatch b = stepsBatch(0, 50, true);
    b.arm_summaries.push_back(summaryOf(ArmKind::kNoAccum, ArmStatus::kStopped, 400));
    b.arm_summaries.push_back(summaryOf(ArmKind::kAccum, ArmStatus::kStopped, 400));
    live.append(b);
    QVERIFY2(status.etaText().startsWith("stopped at 50% after"), qPrintable(status.etaText()));
    QVERIFY2(status.findChild<QLabel*>("eta")->toolTip().contains("400 of 800"),
             qPrintable(status.findChild<QLabel*>("eta")->toolTip()));
    QCOMPARE(status.progressPercent(), 50);
    live.end(false);
    QCOMPARE(status.stateText(), QString("Stopped"));

    live.begin("again");
    live.append(stepsBatch(0, 10, true));
    live.end(true);
    QCOMPARE(status.stateText(), QString("Failed"));
  }
};

QTEST_MAIN(LiveRunTest)
#include "live_run_test.moc"
