// SweepPanel: shows a stored sweep's points, fits and plots, and runs a new sweep through
// accumlab-cli (ACCUMLAB_CLI), refreshing as its points finish.
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QDoubleSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include "accumlab/run_store.h"
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
    const int64_t id = store.createSweep("by hand", R"({"target": {"kind": "loss", "value": 0.5}})", points);
    for (SweepPoint p : points) {
      const double b = static_cast<double>(p.effectiveBatch());
      p.status = p.index == 4 ? "missed" : "reached";
      p.steps_to_target = p.index == 4 ? kNaN : 100.0 * (1.0 + 50.0 / b);
      p.samples_to_target = p.steps_to_target * b;
      p.loss_variance = 0.5 / b;
      p.val_accuracy = 0.8;
      store.updateSweepPoint(id, p);
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
    QSignalSpy errors(&panel, &SweepPanel::errorOccurred);
    QVERIFY(panel.startSweep());
    QVERIFY(panel.isRunning());
    QVERIFY(test::waitUntil([&] { return !panel.isRunning(); }, 120000));
    QCOMPARE(errors.count(), 0);
    const SweepDetail sweep = store.sweep(panel.shownSweep());
    QCOMPARE(sweep.row.name, std::string());
    QCOMPARE(sweep.points.size(), size_t{5});  // (8,1) (8,2) (16,1) (8,4) (16,2)
    for (const SweepPoint& p : sweep.points) QCOMPARE(p.status, std::string("reached"));
    QCOMPARE(panel.findChild<QTableWidget*>("sweepPoints")->rowCount(), 5);
    // Two m at B = 16 and at B = 32: the memory plot draws the one with the most.
    QCOMPARE(panel.plots()->plot(3)->graphCount(), 2);
    const QString shot = qEnvironmentVariable("ACCUMLAB_SWEEP_SHOT");
    if (!shot.isEmpty()) panel.grab().save(shot);
  }

 private:
  QTemporaryDir dir_;
  QString path_;
};

QTEST_MAIN(SweepPanelTest)
#include "sweep_panel_test.moc"
