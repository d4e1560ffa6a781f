// SPDX-License-Identifier: GPL-3.0-or-later
// TrainingController: start, pause, resume, stop and mid-run slider changes (ARCHITECTURE.md,
// "Threads").
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <memory>

#include "accumlab/lesson.h"
#include "accumlab/torchscript_check.h"
#include "controller/training_controller.h"
#include "series/run_data.h"
#include "ui_test_support.h"

using namespace accumlab;
using namespace accumlab::ui;

class TrainingControllerTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void runsToTheEndAndDeliversEveryStep() {
    TrainingController controller;
    RunData run;
    connect(&controller, &TrainingController::batchReady, this,
            [&](const RecordBatch& b) { run.append(b); });
    QSignalSpy finished(&controller, &TrainingController::finished);
    QVERIFY(controller.start(test::smallExperiment(4000)));
    QVERIFY(controller.isRunning());
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    QCOMPARE(finished.first().at(0).toString(), QString());
    QVERIFY(!controller.isRunning());
    // no-accum steps every 8 samples, accum and big-batch every 32: 4000/8 and 4000/32.
    QCOMPARE(run.find(ArmKind::kNoAccum)->steps.size(), size_t{500});
    QCOMPARE(run.find(ArmKind::kAccum)->steps.size(), size_t{125});
    QCOMPARE(run.find(ArmKind::kBigBatch)->steps.size(), size_t{125});
    QCOMPARE(run.info.budget_samples, int64_t{4000});
    for (const ArmSeries& arm : run.arms) {
      QVERIFY(arm.has_summary);
      QVERIFY(arm.summary.status == ArmStatus::kFinished);
      QVERIFY(!arm.evals.empty());
    }
  }

  void aRecorderHearsTheSameRecordsAsTheGui() {
    // A lesson's job trains with a LessonRecorder beside the GUI's batches, as the CLI's does.
    TrainingController controller;
    RunData run;
    connect(&controller, &TrainingController::batchReady, this,
            [&](const RecordBatch& b) { run.append(b); });
    QSignalSpy finished(&controller, &TrainingController::finished);
    auto recorder = std::make_shared<LessonRecorder>("job");
    QVERIFY(controller.start(test::smallExperiment(4000), std::nullopt, recorder));
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    const LessonRunResult& heard = recorder->result();
    QCOMPARE(heard.id, std::string("job"));
    size_t shown_steps = 0;
    size_t shown_evals = 0;
    for (const ArmSeries& arm : run.arms) {
      shown_steps += arm.steps.size();
      shown_evals += arm.evals.size();
    }
    QCOMPARE(heard.steps.size(), shown_steps);
    QCOMPARE(heard.steps.size(), size_t{500 + 125 + 125});
    QCOMPARE(heard.evals.size(), shown_evals);
    QCOMPARE(heard.summary.arms.size(), size_t{3});
    // The next run without one leaves it alone.
    QVERIFY(controller.start(test::smallExperiment(400)));
    QVERIFY(test::waitUntil([&] { return finished.count() == 2; }));
    QCOMPARE(recorder->result().steps.size(), size_t{750});
  }

  void pauseHoldsTheRunAndResumeFinishesIt() {
    TrainingController controller;
    RunData run;
    connect(&controller, &TrainingController::batchReady, this,
            [&](const RecordBatch& b) { run.append(b); });
    QSignalSpy finished(&controller, &TrainingController::finished);
    QVERIFY(controller.start(test::smallExperiment(400000)));
    QVERIFY(test::waitUntil([&] { return run.samplesSeen() > 0; }));
    controller.pause();
    QVERIFY(controller.isPaused());
    QVERIFY(test::waitUntil([&] {
      return std::any_of(run.events.begin(), run.events.end(),
                         [](const EventRecord& e) { return e.kind == EventKind::kPause; });
    }));
    QTest::qWait(150);  // a drain or two after the pause took effect
    const int64_t held = run.samplesSeen();
    QTest::qWait(300);
    QCOMPARE(run.samplesSeen(), held);  // nothing trained while paused
    QCOMPARE(finished.count(), 0);
    controller.resume();
    QVERIFY(test::waitUntil([&] { return run.samplesSeen() > held; }));
    controller.stop();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    for (const ArmSeries& arm : run.arms) QVERIFY(arm.summary.status == ArmStatus::kStopped);
  }

  void stopWhilePausedEndsTheRun() {
    TrainingController controller;
    QSignalSpy finished(&controller, &TrainingController::finished);
    QVERIFY(controller.start(test::smallExperiment(400000)));
    controller.pause();
    controller.stop();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }, 20000));
    QVERIFY(!controller.isPaused());
  }

  void destroyingARunningControllerStopsTraining() {
    auto controller = std::make_unique<TrainingController>();
    QVERIFY(controller->start(test::smallExperiment(4'000'000)));
    QTest::qWait(200);
    QElapsedTimer t;
    t.start();
    controller.reset();  // must stop at the next window, not train 4M samples
    QVERIFY2(t.elapsed() < 10000, "the destructor waited for the whole budget");
  }

  void sliderChangeMidRunAppliesAtAWindowBoundaryAndIsRecorded() {
    TrainingController controller;
    RunData run;
    connect(&controller, &TrainingController::batchReady, this,
            [&](const RecordBatch& b) { run.append(b); });
    QSignalSpy finished(&controller, &TrainingController::finished);
    QVERIFY(controller.start(test::smallExperiment(400000)));
    QVERIFY(test::waitUntil([&] { return run.samplesSeen() > 500; }));
    controller.setAccum(16);
    controller.setMicroBatch(4);
    QVERIFY(test::waitUntil([&] {
      const ArmSeries* a = run.find(ArmKind::kAccum);
      return a && !a->steps.empty() && a->steps.back().accum == 16;
    }));
    controller.stop();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));

    auto has = [&](EventKind kind, const char* text) {
      return std::any_of(run.events.begin(), run.events.end(), [&](const EventRecord& e) {
        return e.kind == kind && e.message.find(text) != std::string::npos;
      });
    };
    QVERIFY(has(EventKind::kAccum, "4 → 16"));
    QVERIFY(has(EventKind::kMicroBatch, "8 → 4"));
    // After the change, every window of accum is 4 × 16 and of big-batch 64 × 1.
    const ArmSeries* accum = run.find(ArmKind::kAccum);
    const ArmSeries* big = run.find(ArmKind::kBigBatch);
    QCOMPARE(accum->steps.front().accum, int64_t{4});
    QCOMPARE(accum->steps.back().micro_batch, int64_t{4});
    QCOMPARE(accum->steps.back().window_samples, int64_t{64});
    QCOMPARE(big->steps.back().micro_batch, int64_t{64});
    // The change lands on a window boundary: no step mixes the old and new sizes.
    for (const StepRecord& s : accum->steps) {
      QVERIFY(s.window_samples == 32 || s.window_samples == 64);
    }
  }

  void theGuiKeepsHalfItsShareWhenTrainingFillsEveryCore() {
    ExperimentConfig c = test::smallExperiment(4000);  // three arms
    c.device = "cpu";
    const double normal = TrainingController::kGuiShare;
    const double busy = TrainingController::kGuiShareAllCoresTraining;
    QCOMPARE(busy, 2 * normal);
    c.arm_threads = 1;
    QCOMPARE(TrainingController::guiShare(c, 2, false), normal);  // one core trains
    c.threads = 2;
    QCOMPARE(TrainingController::guiShare(c, 2, false), busy);  // one arm, two torch threads
    c.threads = 1;
    c.arm_threads = 0;  // one arm per core
    QCOMPARE(TrainingController::guiShare(c, 2, false), busy);
    QCOMPARE(TrainingController::guiShare(c, 8, false), normal);  // 3 arms leave 5 cores
    c.arm_threads = 2;
    QCOMPARE(TrainingController::guiShare(c, 2, false), busy);
    c.device = "auto";  // on a GPU the arms train one after another, on it
    QCOMPARE(TrainingController::guiShare(c, 2, true), normal);
    QCOMPARE(TrainingController::guiShare(c, 2, false), busy);
    c.arm_threads = 1;
    c.workers = 2;  // a process per worker
    QCOMPARE(TrainingController::guiShare(c, 2, false), busy);
    QCOMPARE(TrainingController::guiShare(c, 4, false), normal);
  }

  void secondStartWhileRunningIsRefused() {
    TrainingController controller;
    QSignalSpy refused(&controller, &TrainingController::startFailed);
    QSignalSpy finished(&controller, &TrainingController::finished);
    QVERIFY(controller.start(test::smallExperiment(400000)));
    QVERIFY(!controller.start(test::smallExperiment()));
    QCOMPARE(refused.count(), 1);
    controller.stop();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
  }

  void badDatasetIsReportedNotThrown() {
    TrainingController controller;
    QSignalSpy finished(&controller, &TrainingController::finished);
    ExperimentConfig c = test::smallExperiment();
    c.data = "csv:/nonexistent/file.csv";
    QVERIFY(controller.start(c));
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    const QString error = finished.first().at(0).toString();
    QVERIFY2(error.contains("file.csv"), qPrintable(error));
    QVERIFY(finished.first().at(1).toBool());               // an input error, for a dialog
    QVERIFY(controller.start(test::smallExperiment(800)));  // the controller still works
    QVERIFY(test::waitUntil([&] { return finished.count() == 2; }));
  }

  void modelThatCrashesTheLoaderIsReportedAndTheAppStaysUp() {
    // The engine beside the accumlab-cli that $ACCUMLAB_CLI names loads the file first.
    const QString engine =
        QFileInfo(qEnvironmentVariable("ACCUMLAB_CLI")).dir().filePath("accumlab-engine");
    if (!QFileInfo(engine).isExecutable()) QSKIP("no accumlab-engine beside $ACCUMLAB_CLI");
    setModelCheckProgram(engine.toStdString());
    const QString model = QFINDTESTDATA("../fuzz/findings/torchscript/segv-in-libtorch-loader.pt");
    QVERIFY(!model.isEmpty());
    TrainingController controller;
    QSignalSpy finished(&controller, &TrainingController::finished);
    ExperimentConfig c = test::smallExperiment();
    c.model = "torchscript:" + model.toStdString();
    QVERIFY(controller.start(c));
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }));
    const QString error = finished.first().at(0).toString();
    QVERIFY2(error.startsWith(model +
                              " is not a loadable TorchScript model: the loader crashed (signal "),
             qPrintable(error));
    QVERIFY(finished.first().at(1).toBool());               // an input error, for a dialog
    QVERIFY(controller.start(test::smallExperiment(800)));  // this process still trains
    QVERIFY(test::waitUntil([&] { return finished.count() == 2; }));
    QCOMPARE(finished.at(1).at(0).toString(), QString());
  }

  void twoWorkersTrainAccumDataParallelAndRefuseAPause() {
    // Rank 1 is the accumlab-cli that $ACCUMLAB_CLI names (tests/ui/CMakeLists.txt).
    TrainingController controller;
    RunData run;
    connect(&controller, &TrainingController::batchReady, this,
            [&](const RecordBatch& b) { run.append(b); });
    QSignalSpy finished(&controller, &TrainingController::finished);
    ExperimentConfig c = test::smallExperiment(6400);
    c.workers = 2;
    QVERIFY(controller.start(c));
    QVERIFY(test::waitUntil([&] { return run.samplesSeen() > 0; }));
    controller.pause();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }, 60000));
    QCOMPARE(finished.first().at(0).toString(), QString());
    // m·K·N = 8·4·2: 100 windows of 64 samples, each with its all-reduce time.
    const ArmSeries* accum = run.find(ArmKind::kAccum);
    QVERIFY(accum && accum->has_summary);
    QVERIFY(accum->summary.status == ArmStatus::kFinished);
    QCOMPARE(accum->steps.size(), size_t{100});
    QCOMPARE(accum->steps.back().accum, int64_t{8});
    for (const StepRecord& r : accum->steps) QVERIFY(std::isfinite(r.allreduce_ms));
    QVERIFY(accum->summary.equivalence_rel_diff <= 1e-5);
    const auto has = [&](EventKind kind) {
      return std::any_of(run.events.begin(), run.events.end(),
                         [kind](const EventRecord& e) { return e.kind == kind; });
    };
    QVERIFY(has(EventKind::kWorkers));
    QVERIFY(has(EventKind::kRejected));  // the pause
    QVERIFY(!has(EventKind::kPause));
  }
};

QTEST_MAIN(TrainingControllerTest)
#include "training_controller_test.moc"
