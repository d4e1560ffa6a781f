// SPDX-License-Identifier: GPL-3.0-or-later
// SweepPanel: shows a stored sweep's points, fits and plots, and runs a new sweep whose
// points accumlab-cli (ACCUMLAB_CLI) trains, refreshing as its points finish.
#include <qcustomplot.h>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "accumlab/plot_ids.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_event.h"
#include "accumlab/sweep_store.h"
#include "plots/plot_catalog.h"
#include "sweep/sweep_panel.h"
#include "sweep/sweep_plots.h"
#include "ui_test_support.h"

using namespace accumlab;
using namespace accumlab::ui;

class SweepPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("runs.sqlite");
  }

  // The plots a lesson may name (accumlab/plot_ids.h) are the plots the app draws, in order.
  void plotIdsAreTheAppsPlots() {
    QStringList live, catalog;
    for (const std::string& id : livePlotIds()) live << QString::fromStdString(id);
    for (const CanvasDef& def : plotCatalog()) catalog << def.id;
    QCOMPARE(catalog, live);
    SweepPlots plots;
    QStringList sweep, drawn;
    for (const std::string& id : sweepPlotIds()) sweep << QString::fromStdString(id);
    for (int i = 0; i < plots.count(); ++i) drawn << plots.plot(i)->objectName();
    QCOMPARE(drawn, sweep);
    for (const QString& id : sweep) QVERIFY2(!SweepPlots::title(id).isEmpty(), qPrintable(id));
    QVERIFY(SweepPlots::title("loss").isEmpty());
  }

  void showsAStoredSweepWithItsFits() {
    RunStore store(path_.toStdString());
    // S(B) = 100 (1 + 50/B) exactly: the panel must show B_crit = 50.
    std::vector<SweepPoint> points;
    for (int64_t b : {8, 16, 32, 64, 128}) {
      SweepPoint p;
      p.index = static_cast<int64_t>(points.size());
      p.micro_batch = 8;
      p.accum = b / 8;
      p.lr = 0.01;
      points.push_back(p);
    }
    SweepSpec spec;
    spec.target.value = 0.5;
    const int64_t id = SweepStore(store).create("by hand", spec, points);
    for (SweepPoint p : points) {
      const double b = static_cast<double>(p.effectiveBatch());
      p.status = p.index == 4 ? SweepStatus::kMissed : SweepStatus::kReached;
      p.steps_to_target = p.index == 4 ? kNaN : 100.0 * (1.0 + 50.0 / b);
      p.samples_to_target = p.steps_to_target * b;
      p.loss_variance = 0.5 / b;
      p.val_accuracy = 0.8;
      SweepStore(store).updatePoint(id, p);
    }
    SweepPanel panel([] { return ExperimentConfig{}; });
    panel.setStore(&store, path_);
    QCOMPARE(panel.shownSweep(), id);
    auto* summary = panel.findChild<QLabel*>("sweepSummary");
    QVERIFY2(summary->text().contains("B_crit = E_min/S_min = 50"), qPrintable(summary->text()));
    QVERIFY2(summary->text().contains("B^-1 "), qPrintable(summary->text()));
    auto* table = panel.findChild<QTableWidget*>("sweepPoints");
    QCOMPARE(table->rowCount(), 5);
    QCOMPARE(table->item(4, 3)->text(), QString("missed"));
    // The steps plot: 4 reached points, the missed one as an open marker, the fit curve.
    QCustomPlot* steps = panel.plots()->plot(1);
    QCOMPARE(steps->graph(0)->dataCount(), 4);
    QCOMPARE(steps->graph(2)->dataCount(), 1);
    QVERIFY(steps->graphCount() >= 4);

    // Export: the report and the plots, each a file.
    QSignalSpy errors(&panel, &SweepPanel::errorOccurred);
    const QString report = dir_.filePath("sweep.html");
    QVERIFY(panel.saveReport(report));
    QVERIFY(QFileInfo(report).size() > 10000);
    QVERIFY(panel.savePlots(dir_.path(), "svg"));
    QVERIFY(QFileInfo::exists(dir_.filePath("sweep_steps.svg")));
    QVERIFY(!panel.saveReport(path_));  // never over the run database
    QCOMPARE(errors.count(), 1);
  }

  void sweepsAnotherProgramStoresShowWithoutRefresh() {
    const QString path = dir_.filePath("watched.sqlite");
    RunStore store(path.toStdString());
    SweepPanel panel([] { return ExperimentConfig{}; });
    panel.setStore(&store, path);
    panel.show();
    QCOMPARE(panel.shownSweep(), int64_t{0});
    int64_t id = 0;
    {
      // As accumlab-cli sweep does beside the app: its own connection to the same file.
      RunStore other(path.toStdString());
      SweepPoint p;
      p.micro_batch = 8;
      p.accum = 2;
      p.lr = 0.01;
      id = SweepStore(other).create("from the command line", SweepSpec{}, {p});
    }
    QTRY_COMPARE_WITH_TIMEOUT(panel.shownSweep(), id, 8000);
    auto* picker = panel.findChild<QComboBox*>("sweepPicker");
    QVERIFY(picker != nullptr);
    QVERIFY2(picker->currentText().contains("from the command line"),
             qPrintable(picker->currentText()));
  }

  void runsASweepFromTheGridAndShowsItAsItGoes() {
    if (qEnvironmentVariableIsEmpty("ACCUMLAB_CLI")) QSKIP("ACCUMLAB_CLI is not set");
    RunStore store(path_.toStdString());
    ExperimentConfig base;
    base.data = "blobs";
    base.optimizer.lr = 0.01;
    base.optimizer.scaling = LrScaling::kLinear;
    base.samples = 20000;
    base.epochs = 0;
    base.probe_repeats = 0;
    SweepPanel panel([base] { return base; });
    panel.resize(1400, 900);
    panel.setStore(&store, path_);
    panel.findChild<QLineEdit*>("sweepBatches")->setText("8, 16, 32");
    panel.findChild<QLineEdit*>("sweepMicroBatch")->setText("8, 16");  // B = 16, 32 twice
    panel.findChild<QDoubleSpinBox*>("sweepTarget")->setValue(0.3);
    panel.findChild<QSpinBox*>("sweepJobs")->setValue(2);
    // The recipe: accum (the right one), or each wrong recipe (`sweep --arm`).
    auto* recipe = panel.findChild<QComboBox*>("sweepRecipe");
    QVERIFY(recipe);
    QCOMPARE(recipe->count(), 1 + static_cast<int>(pitfallArms().size()));
    QCOMPARE(recipe->currentData().toString(), QString("accum"));
    QCOMPARE(recipe->itemData(1).toString(), QString("pitfall:sum"));
    QSignalSpy errors(&panel, &SweepPanel::errorOccurred);
    QVERIFY(panel.startSweep());
    QVERIFY(panel.isRunning());
    QVERIFY(test::waitUntil([&] { return !panel.isRunning(); }, 120000));
    QCOMPARE(errors.count(), 0);
    const SweepDetail sweep = SweepStore(store).get(panel.shownSweep());
    QCOMPARE(sweep.row.name, std::string());
    QVERIFY(sweepArmFromSpec(sweep.row.spec_json) == ArmKind::kAccum);
    QCOMPARE(sweep.points.size(), size_t{5});  // (8,1) (8,2) (16,1) (8,4) (16,2)
    for (const SweepPoint& p : sweep.points) QCOMPARE(toString(p.status), std::string("reached"));
    QCOMPARE(panel.findChild<QTableWidget*>("sweepPoints")->rowCount(), 5);
    // Two m at B = 16 and at B = 32: the memory plot draws the one with the most.
    QCOMPARE(panel.plots()->plot(3)->graphCount(), 2);
    const QString shot = qEnvironmentVariable("ACCUMLAB_SWEEP_SHOT");
    if (!shot.isEmpty()) panel.grab().save(shot);
  }

  void followsTheEventsOfItsSweep() {
    // The tab follows its sweep's events (SweepThread tells them as SweepRunner reports):
    // the new sweep is shown when it starts, its table refreshes as points end.
    RunStore store(path_.toStdString());
    std::vector<SweepPoint> points(2);
    for (int i = 0; i < 2; ++i) {
      points[i].index = i;
      points[i].micro_batch = 8;
      points[i].accum = 1 << i;
      points[i].lr = 0.01;
    }
    const int64_t first = SweepStore(store).create("first", SweepSpec{}, points);
    const int64_t second = SweepStore(store).create("second", SweepSpec{}, points);
    SweepPanel panel([] { return ExperimentConfig{}; });
    panel.setStore(&store, path_);
    panel.showSweep(first);
    QSignalSpy status(&panel, &SweepPanel::statusChanged);
    SweepEvent started;
    started.kind = SweepEvent::Kind::kSweepStarted;
    started.sweep = second;
    started.points = 2;
    panel.onSweepEvent(started);
    QCOMPARE(panel.shownSweep(), second);
    SweepPoint p = points[0];
    p.status = SweepStatus::kMissed;
    SweepStore(store).updatePoint(second, p);
    SweepEvent finished;
    finished.kind = SweepEvent::Kind::kPointFinished;
    finished.sweep = second;
    finished.point = p;
    finished.done = 1;
    finished.total = 2;
    panel.onSweepEvent(finished);
    QCOMPARE(panel.findChild<QTableWidget*>("sweepPoints")->item(0, 3)->text(), QString("missed"));
    QCOMPARE(status.count(), 2);
    QCOMPARE(status.last().at(0).toString(), QString("Sweep: 1 of 2 points done"));
  }

  void refusesAGridItCannotRead() {
    // A grid field that is not a list of positive numbers is refused at once, in one
    // sentence naming the field, before anything is stored or started.
    RunStore store(path_.toStdString());
    SweepPanel panel([] { return ExperimentConfig{}; });
    panel.setStore(&store, path_);
    panel.findChild<QLineEdit*>("sweepBatches")->setText("8, sixteen");
    QSignalSpy errors(&panel, &SweepPanel::errorOccurred);
    QVERIFY(!panel.startSweep());
    QCOMPARE(errors.count(), 1);
    QVERIFY2(errors.first().at(0).toString().contains("effective batches B"),
             qPrintable(errors.first().at(0).toString()));
    QVERIFY(!panel.isRunning());
  }

 private:
  QTemporaryDir dir_;
  QString path_;
};

QTEST_MAIN(SweepPanelTest)
#include "sweep_panel_test.moc"
