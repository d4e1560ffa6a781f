// SPDX-License-Identifier: GPL-3.0-or-later
// LessonPanel: lists the lessons, asks the question, trains a lesson's runs through the
// TrainingController one after the other, and shows and stores the verdict.
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QTest>

#include "accumlab/lesson_store.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_store.h"
#include "controller/training_controller.h"
#include "lessons/lesson_panel.h"
#include "ui_test_support.h"
#include "window/run_database.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

/// Two short runs on spirals: the MLP's accumulated gradient equals the big batch's, and a
/// question whose right answer is the first choice.
const char* kTwoRuns = R"({
  "id": "two-runs", "title": "Two runs", "text": "Accum and big-batch, twice.",
  "config": {"data": "spirals", "micro_batch": 8, "accum": 4, "arms": ["accum", "big-batch"],
             "samples": 1600, "grad_check_every": 1, "probe_repeats": 0, "threads": 1},
  "runs": [{"id": "a", "label": "first"}, {"id": "b", "label": "second", "config": {"accum": 2}}],
  "plots": ["equivalence"],
  "prediction": {"question": "Do they match?", "kind": "choice", "choices": [
    {"text": "Yes", "when": {"exact-a": true}}, {"text": "No", "when": {"exact-a": false}}]},
  "checks": [
    {"id": "exact-a", "name": "first run: gradient check", "measure": {"metric": "grad_equivalence", "run": "a"},
     "compare": "at_most", "theory": 1e-5, "holds": "They match.", "fails": "They differ."},
    {"id": "exact-b", "name": "second run: gradient check", "measure": {"metric": "grad_equivalence", "run": "b"},
     "compare": "at_most", "theory": 1e-5, "holds": "They match too.", "fails": "They differ."}]
})";

/// Three sweep points on blobs, each stopping at a loss it reaches within a second.
const char* kSweep = R"({
  "id": "tiny-sweep", "title": "A tiny sweep", "text": "Three batch sizes.",
  "config": {"data": "blobs", "samples": 20000, "probe_repeats": 0, "grad_check_every": 0,
             "threads": 1, "optimizer": {"lr": 0.05}},
  "sweep": {"effective_batches": [8, 16, 32], "micro_batch": 8,
            "target": {"kind": "loss", "value": 0.3}},
  "checks": [{"id": "b", "name": "noise scale", "measure": {"metric": "sweep_b_simple"},
              "compare": "at_least", "theory": 0, "holds": "Measured.", "fails": "Not measured."}]
})";

}  // namespace

class LessonPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
  }

  void listsTheShippedLessonsWithTheirQuestions() {
    TrainingController controller;
    LessonPanel panel(&controller);
    QVERIFY(panel.lessonCount() >= 6);
    auto* list = panel.findChild<QListWidget*>("lessonList");
    QVERIFY(list->item(0)->text().contains("1. One micro-batch is noisy"));
    panel.selectLesson(0);
    auto* title = panel.findChild<QLabel*>("lessonTitle");
    QCOMPARE(title->text(), QString("One micro-batch is noisy"));
    auto* question = panel.findChild<QLabel*>("lessonQuestion");
    QVERIFY(question->text().contains("By what factor"));
    auto* number = panel.findChild<QLineEdit*>("lessonPredictionNumber");
    QVERIFY(number->isVisibleTo(&panel));
    panel.selectLesson(2);  // a choice: which model's accumulation is exact
    auto* choice = panel.findChild<QComboBox*>("lessonPredictionChoice");
    QVERIFY(choice->isVisibleTo(&panel));
    QCOMPARE(choice->count(), 5);  // "choose one" and four choices
    QCOMPARE(choice->itemText(2), QString("Only the MLP"));
  }

  void aBadLessonFileNamesTheFileAndTheField() {
    TrainingController controller;
    LessonPanel panel(&controller);
    const QString path = write("bad.json", R"({"title": "t", "text": "x", "checks": [
        {"id": "c", "name": "n", "measure": {"metric": "nope"}, "theory": 1, "holds": "h", "fails": "f"}]})");
    QSignalSpy errors(&panel, &LessonPanel::errorOccurred);
    const int before = panel.lessonCount();
    QVERIFY(!panel.openLessonFile(path));
    QCOMPARE(errors.count(), 1);
    const QString message = errors.first().first().toString();
    QVERIFY2(message.contains(path) && message.contains("checks[0].measure.metric") &&
                 message.contains("unknown metric 'nope'"),
             qPrintable(message));
    QCOMPARE(panel.lessonCount(), before);
  }

  void runsEachRunThroughTheControllerAndStoresTheVerdict() {
    const QString db = dir_.filePath("runs.sqlite");
    TrainingController controller;
    RunDatabase database(&controller);  // as the window stores runs
    database.open(db);
    RunStore& store = *database.store();
    LessonPanel panel(&controller);
    panel.setStore(&store, [&database] { return database.storedRuns(); });
    QVERIFY(panel.openLessonFile(write("two.json", kTwoRuns)));
    panel.setPrediction("Yes");
    QSignalSpy started(&controller, &TrainingController::started);
    QSignalSpy finished(&panel, &LessonPanel::lessonFinished);
    QVERIFY(panel.startLesson());
    QVERIFY(panel.isRunning());
    QVERIFY(finished.wait(90000));
    QCOMPARE(started.count(), 2);  // one controller run per lesson run, in turn
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(!panel.isRunning());
    QVERIFY(panel.verdict().has_value());
    QVERIFY(panel.verdict()->allHold());
    QVERIFY(panel.verdict()->prediction->correct);
    const QString card = panel.verdictText();
    QVERIFY2(card.contains("Every check holds") && card.contains("They match too.") &&
                 card.contains("Your prediction"),
             qPrintable(card));
    // Stored: two runs of two arms, and the attempt with its verdict.
    QCOMPARE(panel.runIds().size(), size_t{4});
    const auto results = LessonStore(store).list();
    QCOMPARE(results.size(), size_t{1});
    QCOMPARE(results[0].lesson_id, std::string("two-runs"));
    QCOMPARE(results[0].run_ids, panel.runIds());
    QCOMPARE(results[0].prediction, std::string("Yes"));
    QVERIFY(results[0].all_hold);
    const RunDetail second = store.run(panel.runIds()[2]);
    QCOMPARE(second.row.accum, int64_t{2});
    QVERIFY(second.row.experiment_name.find("second") != std::string::npos);
    // The list marks the lesson as done.
    auto* list = panel.findChild<QListWidget*>("lessonList");
    QVERIFY2(list->item(panel.currentRow())->text().startsWith("✓"),
             qPrintable(list->item(panel.currentRow())->text()));
    // "Show runs" asks the window to open exactly these runs.
    QSignalSpy show(&panel, &LessonPanel::showRunsRequested);
    auto* show_runs = panel.findChild<QPushButton*>("lessonShowRuns");
    QVERIFY(show_runs->isEnabled());
    show_runs->click();
    QCOMPARE(show.count(), 1);
    QCOMPARE(show.first().first().value<std::vector<int64_t>>(), panel.runIds());
    // The attempt's HTML report starts with its lesson results.
    const QString report = dir_.filePath("lesson.html");
    QVERIFY(panel.saveReport(report));
    QFile html(report);
    QVERIFY(html.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(html.readAll());
    QVERIFY(text.contains("<h2>Lesson results</h2>"));
    QVERIFY(text.contains("second run: gradient check"));
    QVERIFY(text.contains("They match too."));
    QVERIFY(text.indexOf("Lesson results") < text.indexOf("<h2>Plots</h2>"));
  }

  void aSweepLessonStoresItsPointsAsASweep() {
    const QString db = dir_.filePath("sweep.sqlite");
    TrainingController controller;
    RunDatabase database(&controller);  // as the window stores runs
    database.open(db);
    RunStore& store = *database.store();
    LessonPanel panel(&controller);
    panel.setStore(&store, [&database] { return database.storedRuns(); });
    QVERIFY(panel.openLessonFile(write("sweep.json", kSweep)));
    QSignalSpy finished(&panel, &LessonPanel::lessonFinished);
    QVERIFY(panel.startLesson());
    QVERIFY(finished.wait(90000));
    const auto sweeps = SweepStore(store).list();
    QCOMPARE(sweeps.size(), size_t{1});
    const SweepDetail sweep = SweepStore(store).get(sweeps[0].id);
    QCOMPARE(sweep.points.size(), size_t{3});
    for (const SweepPoint& p : sweep.points) {
      QVERIFY2(p.status == SweepStatus::kReached, toString(p.status).c_str());
      QVERIFY(p.run_id > 0);
      QVERIFY(store.run(p.run_id).row.status == ArmStatus::kStopped);  // stopped at the target
    }
    QCOMPARE(panel.verdict()->sweep_points.size(), size_t{3});
    QSignalSpy show(&panel, &LessonPanel::showSweepRequested);
    panel.findChild<QPushButton*>("lessonShowRuns")->click();
    QCOMPARE(show.count(), 1);
    QCOMPARE(show.first().first().value<int64_t>(), sweeps[0].id);
  }

  void stopEndsTheLessonWithoutAVerdict() {
    TrainingController controller;
    LessonPanel panel(&controller);
    QByteArray slow = kTwoRuns;
    slow.replace("\"samples\": 1600", "\"samples\": 4000000");
    QVERIFY(panel.openLessonFile(write("slow.json", slow)));
    QSignalSpy started(&controller, &TrainingController::started);
    QVERIFY(panel.startLesson());
    QVERIFY(test::waitUntil([&] { return controller.isRunning(); }));
    QTest::qWait(300);
    panel.stopLesson();
    QVERIFY(test::waitUntil([&] { return !panel.isRunning(); }, 30000));
    QTest::qWait(200);
    QCOMPARE(started.count(), 1);  // the second run never started
    QVERIFY(!controller.isRunning());
    QVERIFY(!panel.verdict().has_value());
    QVERIFY(panel.findChild<QLabel*>("lessonProgress")->text().contains("no verdict"));
  }

 private:
  /// The window's wiring: every run the controller trains goes into `db`.
  QString write(const QString& name, const QByteArray& text) {
    const QString path = dir_.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(text);
    return path;
  }

  QTemporaryDir dir_;
};

QTEST_MAIN(LessonPanelTest)
#include "lesson_panel_test.moc"
