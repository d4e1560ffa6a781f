// SPDX-License-Identifier: GPL-3.0-or-later
// PlotGrid: plots receive points while training and redraw from history on view changes.
#include "plots/plot_grid.h"
#include "plots/pane_readouts.h"
#include "plots/plot_exporter.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <cmath>
#include <map>

#include "accumlab/experiment_config.h"
#include "accumlab/run_store.h"
#include "accumlab/trainer.h"
#include "controller/training_controller.h"
#include "plots/arm_style.h"
#include "plots/compact_ticker.h"
#include "plots/log_ticker.h"
#include "plots/metric_canvas.h"
#include "runs/run_loader.h"
#include "series/live_run.h"
#include "series/shown_runs.h"
#include "summary_table.h"
#include "ui_test_support.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {
/// The value a tick label names: "20", "0.05", "20k", "1.5M", "2·10⁻⁷", "10⁻⁶".
double labelValue(const QString& label) {
  static const QString kSuperscripts = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
  const int power = label.indexOf(QStringLiteral("10"), label.indexOf(QChar(u'·')) + 1);
  if (label.contains(QChar(u'⁻')) ||
      std::any_of(label.begin(), label.end(), [](QChar c) { return kSuperscripts.contains(c); })) {
    const int dot = label.indexOf(QChar(u'·'));
    const double mantissa = dot >= 0 ? label.left(dot).toDouble() : 1.0;
    QString exponent;
    for (QChar c : label.mid(power + 2)) {
      exponent += c == QChar(u'⁻') ? QChar('-')
                                   : QChar(static_cast<char16_t>(u'0' + kSuperscripts.indexOf(c)));
    }
    return mantissa * std::pow(10.0, exponent.toInt());
  }
  const QChar last = label.isEmpty() ? QChar() : label.back();
  const double unit = last == 'k' ? 1e3 : last == 'M' ? 1e6 : last == 'G' ? 1e9 : 1;
  bool ok = false;
  const double v = (unit == 1 ? label : label.chopped(1)).toDouble(&ok);
  return ok ? v * unit : kNaN;
}

/// Whether `v` is 1, 2 or 5 times a power of ten.
bool onOneTwoFive(double v) {
  const double mantissa = v / std::pow(10.0, std::floor(std::log10(v) + 1e-9));
  return std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 ||
         std::fabs(mantissa - 5) < 1e-9;
}

MetricCanvas* canvasById(const PlotGrid& plots, const QString& id) {
  for (MetricCanvas* c : plots.canvases()) {
    if (c->definition().id == id) return c;
  }
  return nullptr;
}

/// A synthetic run: `n` steps per arm with a known loss.
RecordBatch syntheticBatch(int from, int n) {
  RecordBatch b;
  for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kAccum}) {
    for (int i = from; i < from + n; ++i) {
      StepRecord r;
      r.arm = arm;
      r.step = i + 1;
      r.samples_seen = (i + 1) * 8;
      r.wall_ms = i;
      r.micro_batch = 8;
      r.accum = arm == ArmKind::kAccum ? 4 : 1;
      r.loss = 1.0 + (i % 2);
      r.loss_var_rolling = arm == ArmKind::kAccum ? 0.01 : 0.08;
      r.loss_var_detrended = r.loss_var_rolling;
      r.loss_var_count = std::min(i + 1, 50);
      b.steps.push_back(r);
    }
  }
  return b;
}

/// A plot grid that draws a live run through ShownRuns, wired as in the main window.
struct LiveGrid {
  LiveGrid() { shown.setLiveRun(&live); }
  LiveRun live;
  ShownRuns shown;
  PlotGrid plots{&shown};
};
}  // namespace

class PlotGridTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void plotsReceivePointsWhileTraining() {
    LiveGrid t;
    t.plots.resize(1200, 800);
    t.plots.show();
    TrainingController controller;
    int batches = 0;
    std::vector<int> counts;
    connect(&controller, &TrainingController::batchReady, this, [&](const RecordBatch& b) {
      t.live.append(b);
      if (b.steps.empty()) return;  // e.g. the first drain, before the first step
      ++batches;
      counts.push_back(t.plots.pointCount());
    });
    QSignalSpy finished(&controller, &TrainingController::finished);
    t.live.begin("live");
    QVERIFY(controller.start(test::smallExperiment(20000)));
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    // Points arrive during the run, not only at its end: the first batch with steps already
    // drew some, and later batches drew more.
    QVERIFY2(batches >= 2, "records came in one lump instead of a stream");
    QVERIFY2(counts.front() > 0 && counts.front() < counts.back(),
             qPrintable(QString("points after the first batch: %1 of %2")
                            .arg(counts.front())
                            .arg(counts.back())));
    QVERIFY(std::is_sorted(counts.begin(), counts.end()));  // only appended
    MetricCanvas* loss = canvasById(t.plots, "loss");
    // raw + smoothed line for each of 3 arms: 2 × (2500 + 625 + 625) points.
    QCOMPARE(loss->pointCount(), 2 * (2500 + 625 + 625));
    QVERIFY(canvasById(t.plots, "validation")->pointCount() > 0);
    QVERIFY(canvasById(t.plots, "equivalence")->pointCount() > 0);
  }

  void varianceReadoutShowsMeasuredRatioAndK() {
    LiveGrid t;
    t.live.begin("live");
    t.live.append(syntheticBatch(0, 20));
    MetricCanvas* variance = canvasById(t.plots, "variance");
    // Fewer than W = 50 updates: no ratio yet. No probe yet either: the headline says what
    // K is the theory of; the arms' own ratio is in the tooltip, never the headline.
    QVERIFY2(variance->readoutTip().contains("settling… 20/50 updates"),
             qPrintable(variance->readoutTip()));
    QVERIFY2(variance->readout().contains("theory 4 at one set of weights"),
             qPrintable(variance->readout()));
    t.live.append(syntheticBatch(20, 40));
    const QString text = variance->readoutTip();
    // Ratio 8 of two detrended variances over 50 updates (ν = 32.9 each): 90% F-interval
    // [4.5, 14.3].
    QVERIFY2(text.contains("arms' own ratio 8.0× [4.5, 14.3]"), qPrintable(text));
    QVERIFY2(!variance->readout().contains("own ratio"), qPrintable(variance->readout()));
  }

  void equivalenceReadoutSaysWhereRoundingTookOver() {
    // 40 checks at rounding level and one at a kink; the trajectories part at update 31.
    RecordBatch b;
    RunInfo info;
    info.config.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
    b.started = info;
    for (ArmKind arm : {ArmKind::kAccum, ArmKind::kBigBatch}) {
      for (int i = 0; i < 41; ++i) {
        StepRecord r;
        r.arm = arm;
        r.step = i + 1;
        r.samples_seen = (i + 1) * 64;
        r.micro_batch = arm == ArmKind::kAccum ? 8 : 64;
        r.accum = arm == ArmKind::kAccum ? 8 : 1;
        r.loss = 1;
        if (arm == ArmKind::kAccum) r.grad_equiv = i == 20 ? 1.4e-2 : 4e-7;
        if (arm == ArmKind::kAccum && i == 20) r.grad_equiv_f64 = 2e-16;  // float64 agreed
        if (arm == ArmKind::kBigBatch) r.weight_rel_diff = i < 30 ? 1e-6 : 5e-2 * (i - 29);
        b.steps.push_back(r);
      }
    }
    LiveGrid t;
    t.live.begin("live");
    t.live.append(b);
    MetricCanvas* equivalence = canvasById(t.plots, "equivalence");
    const QString text = equivalence->readout();
    // The headline every place gives: the largest check that was not a kink.
    QVERIFY2(text.contains("gradient check (largest, kinks excluded) <b>4.00e-07</b>"),
             qPrintable(text));
    QVERIFY2(text.contains("trajectories 5.5e-01 (parted at update 31: rounding"),
             qPrintable(text));
    const QString tip = equivalence->readoutTip();
    QVERIFY2(tip.contains("41 checks at equal weights") && tip.contains("(at most 1.4e-02)"),
             qPrintable(tip));
    QVERIFY2(tip.contains("rounding level until update 31"), qPrintable(tip));
    QVERIFY2(tip.contains("One check above float32 rounding was a kink") &&
                 tip.contains("the two passes agreed to 2.0e-16"),
             qPrintable(tip));
    QVERIFY2(!tip.contains("are real differences"), qPrintable(tip));
    // The float64 repeat is one diamond, inside the fitted axis (not cut by its edge).
    QCPGraph* repeat = nullptr;
    for (int i = 0; i < equivalence->plot()->graphCount(); ++i) {
      if (equivalence->plot()->graph(i)->name().contains("float64 repeat")) {
        repeat = equivalence->plot()->graph(i);
      }
    }
    QVERIFY(repeat != nullptr);
    QCOMPARE(repeat->dataCount(), 1);
    QCOMPARE(repeat->lineStyle(), QCPGraph::lsNone);
    QCOMPARE(repeat->scatterStyle().shape(), QCPScatterStyle::ssDiamond);
    QVERIFY(repeat->valueAxis()->range().lower < 2e-16 / 3);

    // Before the parting, the trajectories are rounding and the read-out says no more.
    RecordBatch early = b;
    early.steps.erase(std::remove_if(early.steps.begin(), early.steps.end(),
                                     [](const StepRecord& r) { return r.step > 30; }),
                      early.steps.end());
    t.live.begin("early");
    t.live.append(early);
    QVERIFY2(equivalence->readout().endsWith("trajectories 1.0e-06"),
             qPrintable(equivalence->readout()));

    // In float64 rounding level is 1e-12: 1e-6 is already apart.
    early.started->config.dtype = DType::kFloat64;
    t.live.begin("float64");
    t.live.append(early);
    QVERIFY2(equivalence->readout().contains("parted at update 1:"),
             qPrintable(equivalence->readout()));
  }

  void probePointsCarryTheirIntervals() {
    LiveGrid t;
    t.live.begin("live");
    RecordBatch b = syntheticBatch(0, 60);
    ProbeRecord p;
    p.arm = ArmKind::kAccum;
    p.step = 60;
    p.samples_seen = 480;
    p.micro_batch = 8;
    p.accum = 4;
    p.repeats = 64;
    p.ratio = 3.9;
    p.ci_low = 2.5;
    p.ci_high = 6.1;
    p.theory = 4;
    b.probes.push_back(p);
    t.live.append(b);
    MetricCanvas* variance = canvasById(t.plots, "variance");
    // One probe pooled is that probe.
    QVERIFY2(variance->readout().contains("same weights <b>3.9×</b> [2.5, 6.1]"),
             qPrintable(variance->readout()));
    QCPErrorBars* bars = nullptr;
    for (int i = 0; i < variance->plot()->plottableCount(); ++i) {
      if (auto* e = qobject_cast<QCPErrorBars*>(variance->plot()->plottable(i))) bars = e;
    }
    QVERIFY(bars);
    QCOMPARE(bars->dataCount(), 1);
    QCOMPARE(bars->data()->at(0).errorMinus, 3.9 - 2.5);
    QCOMPARE(bars->data()->at(0).errorPlus, 6.1 - 3.9);
    // A redraw (e.g. a new x-axis) keeps the probe, once.
    t.plots.setXAxisMode(XAxisMode::kSteps);
    int points = 0;
    for (int i = 0; i < variance->plot()->graphCount(); ++i) {
      if (variance->plot()->graph(i)->name().contains("same weights")) {
        points += variance->plot()->graph(i)->dataCount();
        QCOMPARE(variance->plot()->graph(i)->data()->at(0)->key, 60.0);
      }
    }
    QCOMPARE(points, 1);
  }

  void appendingOnlyAddsTheNewPoints() {
    LiveGrid t;
    t.live.begin("live");
    t.live.append(syntheticBatch(0, 10));
    MetricCanvas* loss = canvasById(t.plots, "loss");
    QCOMPARE(loss->pointCount(), 2 * 2 * 10);
    // A mark on a drawn point: appending leaves it, clearing and redrawing would not.
    QCPGraph* raw = loss->plot()->graph(0);
    raw->data()->begin()->value = 42.0;
    t.live.append(syntheticBatch(10, 5));
    QCOMPARE(loss->pointCount(), 2 * 2 * 15);
    QCOMPARE(loss->plot()->graph(0), raw);
    QCOMPARE(raw->data()->begin()->value, 42.0);
    QCOMPARE(raw->dataCount(), 15);
    QCOMPARE(raw->data()->at(14)->key, 15.0 * 8);  // x = samples seen
  }

  void xAxisModeAndSmoothingRedrawFromHistory() {
    LiveGrid t;
    t.live.begin("live");
    t.live.append(syntheticBatch(0, 50));
    MetricCanvas* loss = canvasById(t.plots, "loss");
    const int before = loss->pointCount();
    t.plots.setXAxisMode(XAxisMode::kSteps);
    QCOMPARE(loss->pointCount(), before);
    QCOMPARE(loss->plot()->graph(0)->data()->at(49)->key, 50.0);
    // Smoothing 0 shows the raw values on the bold line; 0.9 averages 1,2,1,2… near 1.5.
    t.plots.setSmoothing(0.0);
    auto smoothed = [&] {
      for (int i = 0; i < loss->plot()->graphCount(); ++i) {
        QCPGraph* g = loss->plot()->graph(i);
        if (!g->property("faint").toBool()) return g;
      }
      return static_cast<QCPGraph*>(nullptr);
    };
    QCOMPARE(smoothed()->data()->at(49)->value, 2.0);
    t.plots.setSmoothing(0.9);
    QVERIFY(std::fabs(smoothed()->data()->at(49)->value - 1.5) < 0.1);
  }

  void sliderEventsBecomeMarkersOnEveryPlot() {
    LiveGrid t;
    t.live.begin("live");
    RecordBatch b = syntheticBatch(0, 10);
    // m and K changed at one sample (both sliders moved before the next window): one marker,
    // with a short label.
    EventRecord m;
    m.kind = EventKind::kMicroBatch;
    m.samples_seen = 40;
    m.message = "micro-batch 8 → 16 for all arms at sample 40 (optimizer state kept)";
    EventRecord k = m;
    k.kind = EventKind::kAccum;
    k.message = "K 4 → 8 for all arms at sample 40 (optimizer state kept)";
    b.events = {m, k};
    t.live.append(b);
    for (MetricCanvas* c : t.plots.canvases()) {
      QStringList labels;
      for (int i = 0; i < c->plot()->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(c->plot()->item(i));
        if (!text) continue;
        labels << text->text();
        QCOMPARE(text->position->key(), 40.0);
      }
      QCOMPARE(labels, QStringList{"m 8→16, K 4→8"});
    }
  }

  void divergedArmIsMarkedInItsColour() {
    LiveGrid t;
    t.live.begin("live");
    RecordBatch b = syntheticBatch(0, 10);
    EventRecord e;
    e.kind = EventKind::kDiverged;
    e.arm = ArmKind::kNoAccum;
    e.samples_seen = 64;
    e.message = "loss is NaN";
    b.events.push_back(e);
    t.live.append(b);
    MetricCanvas* loss = canvasById(t.plots, "loss");
    bool found = false;
    for (int i = 0; i < loss->plot()->itemCount(); ++i) {
      auto* text = qobject_cast<QCPItemText*>(loss->plot()->item(i));
      if (text && text->text() == "no-accum diverged") {
        found = true;
        QCOMPARE(text->position->key(), 64.0);
      }
    }
    QVERIFY(found);
  }

  void longTickNumbersAreCompact() {
    QCOMPARE(compactNumber(100000), QString("100k"));
    QCOMPARE(compactNumber(250000), QString("250k"));
    QCOMPARE(compactNumber(1200000), QString("1.2M"));
    QCOMPARE(compactNumber(-30000), QString("-30k"));
    QCOMPARE(compactNumber(3e9), QString("3G"));
    QCOMPARE(compactNumber(5000), QString());  // short numbers stay as they are
    // Every plot's sample axis uses it: no label is a run of six digits any more.
    LiveGrid t;
    t.plots.resize(1024, 700);
    t.plots.show();
    t.live.begin("live");
    t.live.append(syntheticBatch(0, 100));
    for (MetricCanvas* c : t.plots.canvases()) {
      c->plot()->xAxis->setRange(0, 300000);
      c->plot()->replot();
      QVERIFY(c->plot()->xAxis->ticker().dynamicCast<CompactTicker>());
      for (const QString& label : c->plot()->xAxis->tickVectorLabels()) {
        QVERIFY2(label.size() <= 5, qPrintable(label));
      }
    }
  }

  void zoomingOnePlotMovesAllAndResetFollowsAgain() {
    LiveGrid t;
    t.plots.resize(1200, 800);
    t.plots.show();
    t.live.begin("live");
    t.live.append(syntheticBatch(0, 100));
    MetricCanvas* loss = canvasById(t.plots, "loss");
    MetricCanvas* variance = canvasById(t.plots, "variance");
    QCOMPARE(loss->plot()->xAxis->range().upper, 800.0);  // following: fitted to the data
    // A user drag/zoom changes an x-axis: every plot shows that range and stops following.
    emit loss->userInteracted();
    loss->plot()->xAxis->setRange(100, 200);
    QCOMPARE(variance->plot()->xAxis->range().lower, 100.0);
    QCOMPARE(variance->plot()->xAxis->range().upper, 200.0);
    t.live.append(syntheticBatch(100, 50));
    QCOMPARE(variance->plot()->xAxis->range().upper, 200.0);  // new data does not move the view
    QVERIFY(!variance->following());
    t.plots.resetView();
    QVERIFY(variance->following());
    QCOMPARE(variance->plot()->xAxis->range().upper, 1200.0);
  }

  void hoverShowsTheNearestValueOfEachArm() {
    LiveGrid t;
    t.plots.resize(1200, 800);
    t.plots.show();
    QVERIFY(QTest::qWaitForWindowExposed(&t.plots));
    t.live.begin("live");
    t.live.append(syntheticBatch(0, 100));
    t.plots.replotNow();
    MetricCanvas* variance = canvasById(t.plots, "variance");
    QCustomPlot* plot = variance->plot();
    const QPoint at(static_cast<int>(plot->xAxis->coordToPixel(400)),
                    plot->axisRect()->rect().center().y());
    QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(plot, &move);
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains("no-accum: 0.08") && tip.contains("accum: 0.01"), qPrintable(tip));
  }

  void logToggleDropsNonPositiveValues() {
    LiveGrid t;
    t.live.begin("live");
    RecordBatch b = syntheticBatch(0, 4);
    b.steps[0].loss = 0.0;
    t.live.append(b);
    MetricCanvas* loss = canvasById(t.plots, "loss");
    const int linear = loss->pointCount();
    t.plots.setLogY(true);
    QCOMPARE(loss->plot()->axisRect()->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(loss->pointCount(), linear - 2);  // the raw 0 and its EMA (also 0) are dropped
  }

  void ratioTicksSayTheValueTheySitAtWithOneAtK() {
    QCOMPARE(logTickLabel(25), QString("25"));
    QCOMPARE(logTickLabel(0.05), QString("0.05"));
    QCOMPARE(logTickLabel(20000), QString("20k"));
    QCOMPARE(logTickLabel(12345), QString("12345"));  // three digits would say 12.3k
    QCOMPARE(logTickLabel(2e-7), QString("2·10⁻⁷"));
    QCOMPARE(logTickLabel(1e-6), QString("10⁻⁶"));
    LiveGrid t;
    t.plots.resize(1024, 900);
    t.plots.show();
    t.live.begin("live");
    RecordBatch b = syntheticBatch(0, 60);  // accum: K = 4
    for (StepRecord& r : b.steps) {
      if (r.arm == ArmKind::kAccum) r.accum = 8;
    }
    t.live.append(b);
    MetricCanvas* variance = canvasById(t.plots, "variance");
    QCPAxis* ratio = variance->plot()->axisRect(1)->axis(QCPAxis::atLeft);
    QCOMPARE(ratio->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(ratio->ticker().dynamicCast<LogTicker>());
    // Each tick is where its label says, K = 8 has one, and the others are 1, 2, 5 × 10ⁿ where
    // the span holds a step of them. Spans: the user's (QCustomPlot's own ticker wrote "3·10¹"
    // at 25 there), a few decades, narrow ones around K, and many decades.
    const std::vector<std::pair<double, double>> spans = {{1.5, 40},  {0.3, 300},  {6, 11},
                                                          {7.5, 8.5}, {1e-3, 1e5}, {0.9, 9.5}};
    auto check = [&](const QString& where, double lo, double hi, const QVector<double>& ticks,
                     const QVector<QString>& labels) {
      const QString all =
          where + QString(" [%1, %2]: ").arg(lo).arg(hi) + QStringList(labels).join(" ");
      QCOMPARE(labels.size(), ticks.size());
      QVERIFY2(ticks.size() >= 2, qPrintable(all));
      bool at_k = false;
      for (int i = 0; i < ticks.size(); ++i) {
        QVERIFY2(ticks[i] >= lo && ticks[i] <= hi, qPrintable(all));
        const double named = labelValue(labels[i]);
        QVERIFY2(std::fabs(named - ticks[i]) <= 1e-9 * ticks[i],
                 qPrintable(all + QString(": \"%1\" sits at %2").arg(labels[i]).arg(ticks[i])));
        at_k |= ticks[i] == 8;
        if (hi / lo >= 2.5 && ticks[i] != 8) QVERIFY2(onOneTwoFive(ticks[i]), qPrintable(all));
      }
      QVERIFY2(at_k, qPrintable(all));
    };
    for (const auto& [lo, hi] : spans) {
      // On the canvas, at the tick count its pane's height gives it.
      ratio->setRange(lo, hi);
      variance->plot()->replot();
      check("canvas", lo, hi, ratio->tickVector(), ratio->tickVectorLabels());
      // The ticker alone, for a short pane (2 ticks wanted) and a tall one (5).
      for (int count : {2, 5}) {
        LogTicker ticker;
        ticker.setTickCount(count);
        ticker.setMarkedValue(8);
        QVector<double> ticks;
        QVector<QString> labels;
        ticker.generate(QCPRange(lo, hi), QLocale(), 'g', 6, ticks, nullptr, &labels);
        check(QString("%1 ticks wanted").arg(count), lo, hi, ticks, labels);
      }
    }
    // K follows the run: a change of K moves the tick.
    RecordBatch more = syntheticBatch(60, 10);
    for (StepRecord& r : more.steps) {
      if (r.arm == ArmKind::kAccum) r.accum = 16;
    }
    t.live.append(more);
    ratio->setRange(1.5, 40);
    variance->plot()->replot();
    QVERIFY(ratio->tickVector().contains(16));
    QVERIFY(!ratio->tickVector().contains(8));
  }

  void readoutAndCliTableGiveTheSameGradientCheck() {
    // One stored run whose headline is far from its typical (median) check: flush-divide-by-K,
    // two epochs that each end in a short window, checks every 3rd update.
    QTemporaryDir dir;
    const std::string db = dir.filePath("runs.sqlite").toStdString();
    ExperimentConfig c;
    c.data = "blobs:16";
    c.synthetic_samples = 13 * 32 + 8;
    c.val_fraction = 0;
    c.model = "mlp:16";
    c.micro_batch = 8;
    c.accum = 4;
    c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
    c.window_policy = WindowPolicy::kFlushDivideByK;
    c.epochs = 2;
    c.grad_check_every = 3;
    c.probe_repeats = 0;
    c.threads = 1;
    c.device = "cpu";
    RunSummary trained;
    {
      StoreSink sink(db);
      trained = Trainer(c).run(sink);
      sink.finish();
    }
    RunStore store(db);
    int64_t accum_id = 0;
    for (const RunRow& r : store.listRuns()) {
      if (r.arm == ArmKind::kAccum) accum_id = r.id;
    }
    QVERIFY(accum_id > 0);
    // The CLI's table of the stored run.
    const RunDetail detail = store.run(accum_id);
    RunSummary stored;
    stored.info.config = configFromJson(detail.config_json, "the stored run");
    stored.arms = {detail.summary};
    const QString table = QString::fromStdString(cli::formatSummaryTable(stored));
    const double headline = detail.summary.grad_equivalence_rel_diff_without_kinks;
    QVERIFY2(headline > 0.1, qPrintable(table));  // 1 − 8/32 at each epoch end
    const QString figure = QString::asprintf("%.2e", headline);
    const QString line = QString("gradient check (largest, kinks excluded): %1 of ").arg(figure);
    QVERIFY2(table.contains(line), qPrintable(table));
    // The app's read-out of the same stored run.
    ShownRuns shown;
    PlotGrid plots(&shown);
    shown.showStored(loadRuns(store, {accum_id}));
    const QString readout = canvasById(plots, "equivalence")->readout();
    QVERIFY2(
        readout.contains(QString("gradient check (largest, kinks excluded) <b>%1</b>").arg(figure)),
        qPrintable(readout + "\n" + table));
  }

  void wrongRecipesAreSaidInWords() {
    // last-only's checks 1.79 off, sum's ×8: the read-out says each as a share of the true
    // gradient, in core's words (pitfallDeviation), the full sentence in its tooltip.
    RunData run;
    run.info.config.accum = 8;
    for (auto [arm, equiv] :
         {std::pair{ArmKind::kPitfallLastOnly, 1.79}, std::pair{ArmKind::kPitfallSum, 7.0}}) {
      ArmSeries series;
      series.arm = arm;
      for (int i = 0; i < 3; ++i) {
        StepRecord r;
        r.arm = arm;
        r.step = i + 1;
        r.micro_batch = 8;
        r.accum = 8;
        r.window_samples = 64;
        r.grad_equiv = equiv;
        series.steps.push_back(r);
      }
      run.arms.push_back(series);
    }
    const PaneReadout out = equivalenceReadout(run);
    QVERIFY2(out.text.contains("wrong recipes: last-only gradient 179% off the true one, "
                               "sum updates ×8.00 the true one"),
             qPrintable(out.text));
    QVERIFY2(out.more.contains("pitfall:last-only: typically 1.79 off the big-batch gradient"),
             qPrintable(out.more));
  }

  void oneKeyNamesTheArmsForEveryPlot() {
    RunData a;
    a.label = "run 1";
    a.append(syntheticBatch(0, 10));
    ShownRuns shown;
    PlotGrid plots(&shown);
    QCOMPARE(plots.armKey(), QString());
    shown.showStored({a});
    const QString key = plots.armKey();
    for (const ArmSeries& arm : a.arms) {
      QVERIFY2(key.contains(armColorName(arm.arm)) && key.contains(armLegendName(arm.arm)),
               qPrintable(key));
    }
    QCOMPARE(plots.compareKey(), QString());  // one run: nothing to compare
    // No plot repeats the arms in its own legend; an exported image carries them.
    for (MetricCanvas* canvas : plots.canvases()) {
      QCPLegend* legend = canvas->plot()->legend;
      for (int i = 0; i < legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
        QVERIFY2(!item || !item->plottable()->property("armEntry").toBool(),
                 qPrintable(canvas->definition().id + ": " + item->plottable()->name()));
      }
    }
    MetricCanvas* loss = canvasById(plots, "loss");
    QTemporaryDir dir;
    QString error;
    QVERIFY2(exportCanvas(loss, dir.filePath("loss.png"), &error), qPrintable(error));
    QVERIFY(loss->armKeyOutside());  // restored after the export
  }

  void compareModeOverlaysRunsWithTheirLabels() {
    RunData a, b;
    a.label = "runs 1–3 · spirals";
    a.id_label = "runs 1–3";
    b.label = "runs 7, 9 · spirals";
    b.id_label = "runs 7, 9";
    a.append(syntheticBatch(0, 10));
    b.append(syntheticBatch(0, 20));
    ShownRuns shown;
    PlotGrid plots(&shown);
    shown.showStored({a, b});
    MetricCanvas* loss = canvasById(plots, "loss");
    QCOMPARE(loss->pointCount(), 2 * 2 * 10 + 2 * 2 * 20);
    bool labelled = false;
    for (int i = 0; i < loss->plot()->graphCount(); ++i) {
      labelled = labelled || loss->plot()->graph(i)->name().startsWith("runs 7, 9 · spirals: ");
    }
    QVERIFY(labelled);
    // One colour per run, one line style per arm (the key above the plots says which; the
    // plots' own legends leave the arms to it).
    auto pen = [&](const QString& name) {
      for (int i = 0; i < loss->plot()->graphCount(); ++i) {
        QCPGraph* g = loss->plot()->graph(i);
        if (g->name() == name && g->property("armEntry").toBool()) {
          if (loss->plot()->legend->hasItemWithPlottable(g)) return QPen(Qt::NoPen);
          return g->pen();
        }
      }
      return QPen(Qt::NoPen);
    };
    const QPen a_accum = pen("runs 1–3 · spirals: accum"),
               a_small = pen("runs 1–3 · spirals: no-accum");
    const QPen b_accum = pen("runs 7, 9 · spirals: accum");
    QVERIFY(a_accum.style() != Qt::NoPen && a_small.style() != Qt::NoPen &&
            b_accum.style() != Qt::NoPen);
    QCOMPARE(a_accum.color(), a_small.color());
    QVERIFY(a_accum.color() != b_accum.color());
    QVERIFY(a_accum.style() != a_small.style());
    QCOMPARE(a_accum.style(), b_accum.style());
    for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch}) {
      QVERIFY(a_accum.color() != armColor(arm) && b_accum.color() != armColor(arm));
    }
    // A key above the plots says the same, whether or not the plots' legends fit.
    const QString key = plots.compareKey();
    QVERIFY2(key.contains(runColor(0).name()) && key.contains("runs&nbsp;1–3") &&
                 key.contains(runColor(1).name()) && key.contains("runs&nbsp;7,&nbsp;9"),
             qPrintable(key));
    QVERIFY2(key.contains("no-accum solid") && key.contains("accum dashed") &&
                 !key.contains("big-batch"),
             qPrintable(key));
    // Every run gets its read-out, named by its run ids.
    const QString readout = canvasById(plots, "variance")->readout();
    QVERIFY2(readout.startsWith("runs 1–3: ") && readout.contains("<br>runs 7, 9: "),
             qPrintable(readout));
    // One run shown: no key, and the read-out needs no name.
    shown.showStored({a});
    QCOMPARE(plots.compareKey(), QString());
    QVERIFY(!canvasById(plots, "variance")->readout().startsWith("runs 1–3: "));
  }

  void textRunsDrawTokensPerSecondOnTheThroughputPane() {
    // Each arm's throughput line on the top pane, and what the pane's axis says it counts.
    const auto top = [](MetricCanvas* canvas) {
      QCPAxisRect* pane = canvas->plot()->axisRect(0);
      std::map<QString, double> last;
      for (int i = 0; i < canvas->plot()->graphCount(); ++i) {
        QCPGraph* g = canvas->plot()->graph(i);
        if (g->keyAxis()->axisRect() == pane && g->dataCount() > 0 && g->name() != "process RSS")
          last[g->name()] = (g->data()->constEnd() - 1)->value;
      }
      return last;
    };
    RunData images;
    images.label = "run 1 · spirals";
    images.id_label = "run 1";
    RecordBatch b = syntheticBatch(0, 10);
    for (StepRecord& r : b.steps) r.samples_per_s = 800;
    images.append(b);
    RunData text;
    text.label = "run 2 · fortunes";
    text.id_label = "run 2";
    text.info.config.data = "fortunes";
    for (StepRecord& r : b.steps) r.tokens_per_s = 800 * 98.0;  // 97 bytes + the end byte
    text.append(b);
    ShownRuns shown;
    PlotGrid plots(&shown);
    MetricCanvas* throughput = canvasById(plots, "throughput");

    // Images: samples/s, as before tokens/s existed.
    shown.showStored({images});
    QCOMPARE(throughput->yLabel(0), QStringLiteral("samples/s"));
    QCOMPARE(top(throughput), (std::map<QString, double>{{"accum", 800.0}, {"no-accum", 800.0}}));
    // Text: tokens/s in their place (samples/s of sequences of every length would say little
    // beside them, at 1/98 of the height), and the axis says so.
    shown.showStored({text});
    QCOMPARE(throughput->yLabel(0), QStringLiteral("tokens/s"));
    QCOMPARE(top(throughput),
             (std::map<QString, double>{{"accum", 78400.0}, {"no-accum", 78400.0}}));
    // Compared, each run draws its own unit, and the axis names both.
    shown.showStored({images, text});
    QCOMPARE(throughput->yLabel(0), QStringLiteral("samples/s, text: tokens/s"));
    QCOMPARE(top(throughput).at("run 1 · spirals: accum"), 800.0);
    QCOMPARE(top(throughput).at("run 2 · fortunes: accum"), 78400.0);
    // Nothing shown: the pane's own title again.
    shown.showStored({text});
    shown.showStored({});
    QCOMPARE(throughput->yLabel(0), QStringLiteral("samples/s"));
    QVERIFY(throughput->definition().explanation.contains("tokens per second"));
  }
};

QTEST_MAIN(PlotGridTest)
#include "plot_grid_test.moc"
