// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow: a run from the experiment panel reaches the plots, the status bar and the
// runs list; stored runs open; errors become dialogs and the app keeps running.
#include <SQLiteCpp/Database.h>

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QMessageBox>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <memory>

#include "accumlab/lesson_store.h"
#include "accumlab/run_store.h"
#include "controller/training_controller.h"
#include "experiment/experiment_panel.h"
#include "experiment/source_catalog.h"
#include "lessons/lesson_panel.h"
#include "plots/plot_catalog.h"
#include "plots/plot_grid.h"
#include "runs/runs_model.h"
#include "runs/runs_panel.h"
#include "series/shown_runs.h"
#include "store/store_file.h"
#include "ui_test_support.h"
#include "window/app_options.h"
#include "window/main_window.h"
#include "window/run_status_bar.h"

using namespace accumlab;
using namespace accumlab::ui;

class MainWindowTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
  }

  void theDefaultDemoLastsLongEnoughToTalkOver() {
    // One epoch of Fashion-MNIST was over in about 6 s: too short to explain in front of a
    // class. Five epochs at LR 0.02 take about 15 s, and Esc stops them.
    if (!fashionMnistInstalled()) QSKIP("Fashion-MNIST (dataset-fashion-mnist) is not installed");
    const ExperimentConfig c = defaultExperiment();
    QCOMPARE(QString::fromStdString(c.data), QString("fashion-mnist"));
    QCOMPARE(c.samples, int64_t{0});
    QVERIFY2(c.epochs >= 5, qPrintable(QString("epochs %1").arg(c.epochs)));
    QCOMPARE(c.optimizer.lr, 0.02);
  }

  void runFromThePanelIsPlottedStoredAndListed() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = dir_.filePath("runs.sqlite");
    QVERIFY(window.applyOptions(options));
    window.experimentPanel()->setConfig(test::smallExperiment(3000));
    window.show();
    QSignalSpy finished(window.controller(), &TrainingController::finished);
    window.startRun();
    QVERIFY(window.controller()->isRunning());
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    QCOMPARE(window.lastError(), QString());
    QVERIFY(window.plots()->pointCount() > 0);
    QCOMPARE(window.runStatusBar()->progressPercent(), 100);
    QVERIFY(window.runStatusBar()->throughputText().contains("no-accum"));
    QCOMPARE(window.runsPanel()->visibleRunCount(), 3);
    QVERIFY(window.store()->listRuns().front().status == ArmStatus::kFinished);

    // Opening the stored run shows the same points as the live view did.
    const int live_points = window.plots()->pointCount();
    window.runsPanel()->selectRuns({window.store()->listRuns().front().id});
    emit window.runsPanel()->openRequested(window.runsPanel()->selectedRunIds());
    QCOMPARE(window.shownRuns()->runs().size(), size_t{1});
    QVERIFY(!window.shownRuns()->isLive());
    QCOMPARE(window.shownRuns()->runs().front()->arms.size(), size_t{3});
    QCOMPARE(window.plots()->pointCount(), live_points);
    // A stored run is no live run: no progress bar, ETA or throughput for it.
    QVERIFY(!window.runStatusBar()->progressShown());
    QCOMPARE(window.runStatusBar()->etaText(), QString());
  }

  void twoWorkersRunFromThePanelIsStoredWithTheirRate() {
    // Rank 1 is the accumlab-cli that $ACCUMLAB_CLI names (tests/ui/CMakeLists.txt). A stored
    // run is checkpointed, except on several workers, where it could not be resumed.
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = dir_.filePath("workers.sqlite");
    QVERIFY(window.applyOptions(options));
    ExperimentConfig c = test::smallExperiment(6400);
    c.workers = 2;
    window.experimentPanel()->setConfig(c);
    QCOMPARE(window.experimentPanel()->config().workers, int64_t{2});
    QSignalSpy finished(window.controller(), &TrainingController::finished);
    window.startRun();
    QVERIFY(window.controller()->isRunning());
    const QAction* pause = window.findChild<QAction*>("pauseAction");
    QVERIFY(pause);
    QVERIFY2(!pause->isEnabled(), "pause would make the other worker time out");
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }, 60000));
    QCOMPARE(window.lastError(), QString());
    QVERIFY2(window.runStatusBar()->throughputText().contains("2 workers ×"),
             qPrintable(window.runStatusBar()->throughputText()));
    QVERIFY(window.runStatusBar()->throughputText().contains("all-reduce"));
    const auto runs = window.store()->listRuns();
    QCOMPARE(runs.size(), size_t{3});
    for (const auto& r : runs) QVERIFY(r.status == ArmStatus::kFinished);
  }

  void aLessonTrainsInTheLiveTabAndStopEndsAllOfIt() {
    const QString lesson = dir_.filePath("lesson.json");
    {
      QFile f(lesson);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(R"({"title": "Long", "text": "Two long runs.",
        "config": {"data": "spirals", "micro_batch": 8, "accum": 4, "arms": ["accum", "big-batch"],
                   "samples": 4000000, "probe_repeats": 0, "threads": 1},
        "runs": [{"id": "a"}, {"id": "b"}],
        "checks": [{"id": "c", "name": "n", "measure": {"metric": "steps", "run": "a"},
                    "compare": "at_least", "theory": 1, "holds": "h", "fails": "f"}]})");
    }
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = dir_.filePath("lesson-runs.sqlite");
    options.lesson = lesson;
    options.run = true;
    QVERIFY(window.applyOptions(options));
    const ExperimentConfig mine = window.experimentPanel()->config();
    auto* tabs = window.findChild<QTabWidget*>("centralTabs");
    QVERIFY(test::waitUntil([&] { return window.controller()->isRunning(); }));
    QVERIFY(window.lessonPanel()->isRunning());
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(window.plots()));  // watch it live
    // The lesson trains its own experiment: the user's form is locked, says so, and keeps
    // the user's settings.
    QCOMPARE(window.controller()->config().accum, int64_t{4});
    QCOMPARE(configToJson(window.experimentPanel()->config()), configToJson(mine));
    auto* data_picker = window.experimentPanel()->findChild<QComboBox*>();
    QVERIFY(data_picker && !data_picker->isEnabled());
    QTest::qWait(300);
    QAction* stop = nullptr;
    for (QAction* a : window.findChildren<QAction*>()) {
      if (a->text() == "&Stop") stop = a;
    }
    QVERIFY(stop && stop->isEnabled());
    stop->trigger();  // Esc: the whole lesson stops, not only its first run
    QVERIFY(test::waitUntil([&] { return !window.lessonPanel()->isRunning(); }));
    QTest::qWait(300);
    QVERIFY(!window.controller()->isRunning());
    QCOMPARE(window.store()->listRuns().size(), size_t{2});  // the first run's two arms only
    // After the lesson the form is the user's again, unchanged.
    QVERIFY(data_picker->isEnabled());
    QCOMPARE(configToJson(window.experimentPanel()->config()), configToJson(mine));
    QVERIFY(LessonStore(*window.store()).list().empty());
    QVERIFY(!window.openLesson("99"));
    QVERIFY2(window.lastError().contains("there is no lesson 99"), qPrintable(window.lastError()));
  }

  void spaceAndEscWorkWhereverTheFocusIsAndStopShowsWhereItStopped() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.no_store = true;
    QVERIFY(window.applyOptions(options));
    window.experimentPanel()->setConfig(test::smallExperiment(4000000));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy finished(window.controller(), &TrainingController::finished);
    window.startRun();
    QVERIFY(test::waitUntil([&] { return window.plots()->pointCount() > 0; }));
    // The K box has the focus, as after typing a value: it must not eat Space or Esc.
    auto* spin = window.experimentPanel()->findChildren<QSpinBox*>().value(1);
    QVERIFY(spin);
    spin->setFocus();
    QVERIFY(test::waitUntil([&] { return QApplication::focusWidget() != nullptr; }));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
    QVERIFY(window.controller()->isPaused());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
    QVERIFY(!window.controller()->isPaused());
    // A status message leaves the progress on screen.
    window.runStatusBar()->showMessage("a message", 5000);
    QVERIFY(window.runStatusBar()->progressShown());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    // Stopped early: the bar shows where, not 100%.
    QVERIFY2(window.runStatusBar()->progressPercent() < 100,
             qPrintable(QString::number(window.runStatusBar()->progressPercent())));
    QVERIFY2(window.runStatusBar()->etaText().startsWith("stopped at"),
             qPrintable(window.runStatusBar()->etaText()));
  }

  void plotHelpScrollsInsideTheScreen() {
    MainWindow window;
    window.resize(1024, 700);
    window.show();
    QAction* help = nullptr;
    for (QAction* a : window.findChildren<QAction*>()) {
      if (a->text() == "What the &plots show") help = a;
    }
    QVERIFY(help);
    help->trigger();
    auto* dialog = window.findChild<QDialog*>("plotHelp");
    QVERIFY(dialog);
    QVERIFY(test::waitUntil([&] { return dialog->isVisible(); }));
    const QRect screen = dialog->screen()->availableGeometry();
    QVERIFY2(dialog->height() <= screen.height() * 8 / 10 + 1,
             qPrintable(QString("%1 > %2").arg(dialog->height()).arg(screen.height())));
    auto* text = dialog->findChild<QTextBrowser*>("plotHelpText");
    QVERIFY(text);
    QVERIFY(text->toPlainText().contains("Loss variance"));
    QVERIFY(text->verticalScrollBar()->maximum() > 0);  // it scrolls: the text is longer
    dialog->close();
  }

  void anInterruptedRunResumesFromItsCheckpoint() {
    const QString db = dir_.filePath("resume.sqlite");
    const QString checkpoint = db + ".checkpoints/experiment-1.pt";
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = db;
    QVERIFY(window.applyOptions(options));
    ExperimentConfig config = test::smallExperiment(400000);
    window.experimentPanel()->setConfig(config);
    QSignalSpy finished(window.controller(), &TrainingController::finished);
    window.startRun();
    // Keep the first checkpoint, as a crash would, and end the run.
    QVERIFY(test::waitUntil([&] { return QFile::exists(checkpoint); }, 60000));
    QTest::qWait(50);
    QVERIFY(QFile::copy(checkpoint, checkpoint + ".kept"));
    window.controller()->stop();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    QVERIFY2(!QFile::exists(checkpoint), "a run that ended keeps no checkpoint");
    QVERIFY(QFile::rename(checkpoint + ".kept", checkpoint));
    {
      SQLite::Database raw = store::openStoreFile(db.toStdString(), SQLite::OPEN_READWRITE, 0);
      raw.exec("UPDATE runs SET status = 'interrupted', ended_at = NULL");
    }
    const int64_t id = window.store()->listRuns().front().id;
    emit window.runsPanel()->resumeRequested(id);
    QCOMPARE(window.lastError(), QString());
    QVERIFY(window.controller()->isRunning());
    QTest::qWait(300);
    window.controller()->stop();
    QVERIFY(test::waitUntil([&] { return finished.count() == 2; }));
    // The same runs went on: steps 1…n with no gap or repeat, and the runs ended again.
    for (const RunRow& r : window.store()->listRuns()) {
      QVERIFY(r.status == ArmStatus::kStopped);
      const RunSeries series = window.store()->series(r.id);
      for (size_t i = 0; i < series.steps.size(); ++i)
        QCOMPARE(series.steps[i].step, int64_t(i + 1));
    }
    QCOMPARE(window.store()->listRuns().size(), size_t{3});
    // What the window shows is the whole run, as stored: the records before the checkpoint
    // too, so that its read-outs (pooled probes, parting update) are the stored run's.
    QVERIFY(window.shownRuns()->isLive());
    const RunData& live = *window.shownRuns()->runs().front();
    size_t stored_probes = 0;
    for (const RunRow& r : window.store()->listRuns()) {
      const ArmSeries* arm = live.find(r.arm);
      QVERIFY(arm);
      const RunSeries series = window.store()->series(r.id);
      QCOMPARE(arm->steps.size(), series.steps.size());
      for (size_t i = 0; i < arm->steps.size(); ++i) QCOMPARE(arm->steps[i].step, int64_t(i + 1));
      stored_probes += series.probes.size();
    }
    QCOMPARE(live.probes.size(), stored_probes);
    // Resume is offered only where it works.
    QAction* resume = nullptr;
    for (QAction* a : window.runsPanel()->findChild<QTableView*>()->actions()) {
      if (a->text() == "Resume") resume = a;
    }
    QVERIFY(resume);
    window.runsPanel()->selectRuns({id});
    QVERIFY(!resume->isEnabled());
    // A run that is not interrupted is not resumed.
    emit window.runsPanel()->resumeRequested(id);
    QVERIFY(window.lastError().contains("only an interrupted run"));
  }

  void theRunsDockShowsArmSizesAndStatusAtItsFirstWidth() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = dir_.filePath("dock.sqlite");
    QVERIFY(window.applyOptions(options));
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* dock = window.findChild<QDockWidget*>("runsDock");
    QVERIFY(dock);
    dock->raise();
    auto* view = window.runsPanel()->findChild<QTableView*>();
    QVERIFY(view);
    QTest::qWait(50);
    const int right = view->horizontalHeader()->sectionViewportPosition(RunsModel::kStatus) +
                      view->horizontalHeader()->sectionSize(RunsModel::kStatus);
    QVERIFY2(
        right <= view->viewport()->width(),
        qPrintable(QString("Status ends at %1 of %2").arg(right).arg(view->viewport()->width())));
  }

  void aRunThatFailsToStartKeepsThePreviousPlots() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.no_store = true;
    QVERIFY(window.applyOptions(options));
    window.experimentPanel()->setConfig(test::smallExperiment(2000));
    QSignalSpy finished(window.controller(), &TrainingController::finished);
    window.startRun();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    const int points = window.plots()->pointCount();
    QVERIFY(points > 0);
    // A dataset that cannot be loaded: the run fails before its first record.
    ExperimentConfig bad = test::smallExperiment(2000);
    bad.data = "csv:" + dir_.filePath("missing.csv").toStdString();
    window.experimentPanel()->setConfig(bad);
    window.startRun();
    QVERIFY(test::waitUntil([&] { return finished.count() == 2; }));
    QVERIFY(window.lastError().contains("missing.csv"));
    QCOMPARE(window.plots()->pointCount(), points);
  }

  void badConfigShowsAnErrorAndTheAppKeepsRunning() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.no_store = true;
    QVERIFY(window.applyOptions(options));
    ExperimentConfig c = test::smallExperiment(800);
    c.data = "csv:" + dir_.filePath("missing.csv").toStdString();
    window.experimentPanel()->setConfig(c);
    QSignalSpy finished(window.controller(), &TrainingController::finished);
    window.startRun();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    QVERIFY2(window.lastError().contains("missing.csv"), qPrintable(window.lastError()));
    window.experimentPanel()->setConfig(test::smallExperiment(800));
    window.startRun();
    QVERIFY(test::waitUntil([&] { return finished.count() == 2; }));
    QCOMPARE(finished.at(1).at(0).toString(), QString());
  }

  void droppedFilesSelectDatasetAndModel() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.no_store = true;
    window.applyOptions(options);
    QFile csv(dir_.filePath("points.csv"));
    QVERIFY(csv.open(QIODevice::WriteOnly));
    csv.write("x,y,label\n0.1,0.2,0\n0.3,0.1,1\n");
    csv.close();
    QString error;
    QVERIFY(window.experimentPanel()->openPath(csv.fileName(), &error));
    QCOMPARE(QString::fromStdString(window.experimentPanel()->config().data),
             "csv:" + csv.fileName());
    QFile model(dir_.filePath("net.pt"));
    QVERIFY(model.open(QIODevice::WriteOnly));
    model.close();
    QVERIFY(window.experimentPanel()->openPath(model.fileName(), &error));
    QCOMPARE(QString::fromStdString(window.experimentPanel()->config().model),
             "torchscript:" + model.fileName());
    QVERIFY(!window.experimentPanel()->openPath(dir_.path(), &error));  // an empty folder
    QVERIFY(error.contains(dir_.path()));
    // Random bytes are refused when chosen, not at Run as an "empty cell".
    QFile binary(dir_.filePath("random.csv"));
    QVERIFY(binary.open(QIODevice::WriteOnly));
    binary.write(QByteArray("a,b,y\n1,2,0\n30,4,\0\x9f\x01zz", 22));
    binary.close();
    QVERIFY(!window.experimentPanel()->openPath(binary.fileName(), &error));
    QVERIFY2(error.contains("is not a text CSV file: byte 0x00 at offset 17"), qPrintable(error));
    QCOMPARE(QString::fromStdString(window.experimentPanel()->config().data),
             "csv:" + csv.fileName());
    // The run database is never read as a dataset.
    window.experimentPanel()->setStorePath(csv.fileName());
    QVERIFY(!window.experimentPanel()->openPath(csv.fileName(), &error));
    QVERIFY2(error.contains("is the run database"), qPrintable(error));
  }

  void commandLineOverridesTheExperiment() {
    AppOptions options;
    QString message;
    QCOMPARE(parseAppOptions({"accumlab", "--data", "blobs", "-m", "16", "-k", "4", "--samples",
                              "5000", "--no-store", "--fresh"},
                             &options, &message),
             0);
    MainWindow window;
    window.applyOptions(options);
    const ExperimentConfig c = window.experimentPanel()->config();
    QCOMPARE(c.data, std::string("blobs"));
    QCOMPARE(c.micro_batch, int64_t{16});
    QCOMPARE(c.accum, int64_t{4});
    QCOMPARE(c.samples, int64_t{5000});
    QCOMPARE(parseAppOptions({"accumlab", "-m", "0"}, &options, &message), 2);
    QVERIFY(message.contains("micro-batch"));
    QCOMPARE(parseAppOptions({"accumlab", "--quit-after", "soon"}, &options, &message), 2);
  }

  void lastExperimentAndViewSurviveARestart() {
    ExperimentConfig c = test::smallExperiment(4321);
    c.accum = 12;
    {
      MainWindow window;
      AppOptions options;
      options.fresh = true;
      options.no_store = true;
      window.applyOptions(options);
      window.experimentPanel()->setConfig(c);
      window.plots()->setXAxisMode(XAxisMode::kWallTime);
      window.close();  // saves the settings
    }
    MainWindow again;
    AppOptions options;
    options.no_store = true;
    again.applyOptions(options);
    QCOMPARE(again.experimentPanel()->config().accum, int64_t{12});
    QCOMPARE(again.experimentPanel()->config().samples, int64_t{4321});
    QVERIFY(again.plots()->xAxisMode() == XAxisMode::kWallTime);
  }

  void storeErrorsInRunsPanelActionsBecomeDialogs() {
    // One stored run, which another connection (the CLI, say) deletes while it is listed.
    const std::string db = dir_.filePath("shared.sqlite").toStdString();
    {
      StoreSink sink(db);
      RunInfo info;
      info.config = test::smallExperiment(800);
      info.config.arms = {ArmKind::kAccum};
      sink.onRunStarted(info);
      sink.finish();
    }
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = QString::fromStdString(db);
    QVERIFY(window.applyOptions(options));
    QCOMPARE(window.runsPanel()->visibleRunCount(), 1);
    auto* view = window.runsPanel()->findChild<QTableView*>();
    QVERIFY(view);
    view->setCurrentIndex(view->model()->index(0, 0));
    const int64_t id = window.store()->listRuns().front().id;
    {
      RunStore other(db);
      other.deleteRuns({id});
    }
    for (const QString& text : {QString("Rename…"), QString("Tags…"), QString("Note…")}) {
      QAction* action = nullptr;
      for (QAction* a : view->actions()) {
        if (a->text() == text) action = a;
      }
      QVERIFY2(action, qPrintable(text));
      for (QMessageBox* box : window.findChildren<QMessageBox*>()) delete box;
      action->trigger();  // must not throw into the event loop
      QVERIFY2(window.lastError().contains("there is no run " + QString::number(id)),
               qPrintable(text + ": " + window.lastError()));
      QCOMPARE(window.findChildren<QMessageBox*>().size(), 1);
      QVERIFY(window.findChildren<QMessageBox*>().front()->isVisible());
    }
    window.runsPanel()->refresh();  // and the app goes on
    QCOMPARE(window.runsPanel()->visibleRunCount(), 0);
  }

  void closingTheWindowMidRunStoresTheRunsAsStopped() {
    const QString db = dir_.filePath("closed.sqlite");
    auto window = std::make_unique<MainWindow>();
    AppOptions options;
    options.fresh = true;
    options.db = db;
    QVERIFY(window->applyOptions(options));
    window->experimentPanel()->setConfig(test::smallExperiment(50'000'000));
    window->show();
    window->startRun();
    QVERIFY(test::waitUntil([&] { return window->plots()->pointCount() > 50; }));
    // Quitting mid-run asks first: "No" keeps the window and the run, "Yes" quits.
    bool asked = false;
    auto answer = [&](QMessageBox::StandardButton button) {
      QTimer::singleShot(100, [&asked, button] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        asked = true;
        box->button(button)->click();
      });
    };
    answer(QMessageBox::No);
    QVERIFY(!window->close());
    QVERIFY(asked);
    QVERIFY(window->controller()->isRunning());
    asked = false;
    answer(QMessageBox::Yes);
    QVERIFY(window->close());
    QVERIFY(asked);
    window.reset();  // the controller waits for the training thread
    RunStore store(db.toStdString());
    const auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t{3});
    for (const RunRow& r : runs) {
      QVERIFY2(r.status == ArmStatus::kStopped, toString(r.status).c_str());
      QVERIFY(r.steps > 0);
    }
  }

  void panelConfigRoundTrips() {
    ExperimentPanel panel;
    ExperimentConfig c = test::smallExperiment(12345);
    c.micro_batch = 32;
    c.accum = 7;
    c.arms = {ArmKind::kNoAccum, ArmKind::kAccum};
    c.optimizer.kind = OptimizerKind::kAdamW;
    c.optimizer.lr = 0.003;
    c.optimizer.scaling = LrScaling::kSqrt;
    c.window_policy = WindowPolicy::kFlushDivideByK;
    c.dtype = DType::kFloat64;
    c.seed = 7;
    c.variance_window = 33;  // not shown by the panel: kept
    panel.setConfig(c);
    QCOMPARE(configToJson(panel.config()), configToJson(c));
  }

 private:
  QTemporaryDir dir_;
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
