// SPDX-License-Identifier: GPL-3.0-or-later
// RunsPanel: lists, filters and edits the runs of a temporary database.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "accumlab/run_store.h"
#include "accumlab/trainer.h"
#include "runs/run_loader.h"
#include "runs/runs_panel.h"
#include "ui_test_support.h"

using namespace accumlab;
using namespace accumlab::ui;

class RunsPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("runs.sqlite").toStdString();
    // Two experiments of three arms each, written the way the app writes them.
    for (int64_t k : {4, 8}) {
      ExperimentConfig c = test::smallExperiment(1024);
      c.accum = k;
      StoreSink sink(path_);
      Trainer(c).run(sink);
    }
  }

  void listsEveryRunOfTheDatabase() {
    RunStore store(path_);
    RunsPanel panel;
    panel.setStore(&store);
    QCOMPARE(panel.visibleRunCount(), 6);
    panel.setFilterText("big-batch");
    QCOMPARE(panel.visibleRunCount(), 2);
    panel.setFilterText("8×4");  // the m×K column: only accum of the K = 4 experiment
    QCOMPARE(panel.visibleRunCount(), 1);
    panel.setFilterText("");
    QCOMPARE(panel.visibleRunCount(), 6);
  }

  void runsAnotherProgramWritesShowWithoutRefresh() {
    const std::string path = dir_.filePath("watched.sqlite").toStdString();
    RunStore store(path);
    RunsPanel panel;
    panel.setStore(&store);
    panel.show();
    QCOMPARE(panel.visibleRunCount(), 0);
    {
      // As accumlab-cli run does beside the app: its own connection to the same file.
      StoreSink sink(path);
      Trainer(test::smallExperiment(256)).run(sink);
    }
    QTRY_COMPARE_WITH_TIMEOUT(panel.visibleRunCount(), 3, 8000);
  }

  void withoutAStoreTheListIsEmpty() {
    RunsPanel panel;
    panel.setStore(nullptr);
    QCOMPARE(panel.visibleRunCount(), 0);
  }

  void renameTagNoteAndDeleteReachTheStore() {
    RunStore store(path_);
    RunsPanel panel;
    panel.setStore(&store);
    const std::vector<RunRow> rows = store.listRuns();
    const int64_t id = rows.front().id;
    QVERIFY(panel.renameRun(id, "baseline"));
    QVERIFY(panel.setTags(id, {"teaching", " fmnist "}));
    QVERIFY(panel.setNote(id, "a note"));
    RunDetail d = store.run(id);
    QCOMPARE(d.row.name, std::string("baseline"));
    QCOMPARE(d.row.tags, (std::vector<std::string>{"fmnist", "teaching"}));
    QCOMPARE(d.note, std::string("a note"));
    panel.setFilterText("teaching");
    QCOMPARE(panel.visibleRunCount(), 1);
    QVERIFY(panel.setTags(id, {"fmnist"}));  // removes "teaching"
    QCOMPARE(panel.visibleRunCount(), 0);
    panel.setFilterText("");

    const int64_t last = rows.back().id;
    QVERIFY(panel.deleteRuns({last}));
    QCOMPARE(panel.visibleRunCount(), 5);
    QSignalSpy errors(&panel, &RunsPanel::errorOccurred);
    QVERIFY(!panel.deleteRuns({last}));  // already gone: an error, not a crash
    QCOMPARE(errors.count(), 1);
  }

  void selectionGivesTheRunIds() {
    RunStore store(path_);
    RunsPanel panel;
    panel.setStore(&store);
    const int64_t id = store.listRuns().front().id;
    panel.selectRuns({id});
    QCOMPARE(panel.selectedRunIds(), std::vector<int64_t>{id});
  }

  void loaderGroupsRunsByExperiment() {
    RunStore store(path_);
    const std::vector<RunRow> rows = store.listRuns();
    // One run id stands for its whole experiment.
    std::vector<RunData> one = loadExperiments(store, {rows.front().id});
    QCOMPARE(one.size(), size_t{1});
    QVERIFY(one.front().arms.size() >= 2);
    for (const ArmSeries& arm : one.front().arms) QVERIFY(!arm.steps.empty());
    // Compare: the chosen arms of two experiments.
    std::vector<int64_t> ids;
    for (const RunRow& r : rows) {
      if (r.arm == ArmKind::kAccum) ids.push_back(r.id);  // (a no-accum run was deleted above)
    }
    std::vector<RunData> both = loadRuns(store, ids);
    QCOMPARE(both.size(), size_t{2});
    QCOMPARE(both[0].arms.size(), size_t{1});
    std::vector<size_t> steps{both[0].arms[0].steps.size(), both[1].arms[0].steps.size()};
    std::sort(steps.begin(), steps.end());
    QCOMPARE(steps, (std::vector<size_t>{1024 / 64, 1024 / 32}));  // m·K = 64 and 32 per step
    QVERIFY(both[0].label != both[1].label);
    // Named by the ids the user selected, not by experiment numbers.
    QCOMPARE(both[0].id_label, "run " + std::to_string(ids[0]));
    QVERIFY2(both[0].label.rfind("run " + std::to_string(ids[0]) + " · ", 0) == 0,
             both[0].label.c_str());
    // A whole experiment: its arms' consecutive ids as one range.
    const RunData& whole = one.front();
    QVERIFY2(whole.id_label.rfind("runs ", 0) == 0 && whole.id_label.find("–") != std::string::npos,
             whole.id_label.c_str());
  }

 private:
  QTemporaryDir dir_;
  std::string path_;
};

QTEST_MAIN(RunsPanelTest)
#include "runs_panel_test.moc"
