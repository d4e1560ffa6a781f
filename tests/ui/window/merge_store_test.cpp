// SPDX-License-Identifier: GPL-3.0-or-later
// File → Merge a run store…: the runs of a store made elsewhere come into the app's store and
// its runs list, once; a store that cannot be merged is one sentence (docs/clusters.md).
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QTest>

#include "accumlab/run_store.h"
#include "ui_test_support.h"
#include "window/app_options.h"
#include "window/main_window.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

/// Stores a finished experiment of the accum arm with `steps` steps in `db`.
void storeAway(const QString& db, int64_t steps) {
  RunInfo info;
  info.config.data = "spirals";
  info.config.model = "mlp";
  info.config.arms = {ArmKind::kAccum};
  StoreSink sink(db.toStdString());
  sink.onRunStarted(info);
  for (int64_t s = 1; s <= steps; ++s) {
    StepRecord r;
    r.arm = ArmKind::kAccum;
    r.step = s;
    r.samples_seen = 8 * s;
    r.loss = 1.0 / static_cast<double>(s);
    sink.onStep(r);
  }
  ArmSummary a;
  a.arm = ArmKind::kAccum;
  a.status = ArmStatus::kFinished;
  a.steps = steps;
  sink.onArmFinished(a);
  RunSummary summary;
  summary.info = info;
  summary.arms = {a};
  sink.onRunFinished(summary);
  sink.finish();
}

}  // namespace

class MergeStoreTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
  }

  void fileMergeBringsTheRunsOfAnotherStoreOnce() {
    const QString away = dir_.filePath("away.sqlite");
    storeAway(away, 12);
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = dir_.filePath("home.sqlite");
    QVERIFY(window.applyOptions(options));
    QAction* action = window.menuBar()->findChild<QAction*>("mergeStore");
    QVERIFY(action != nullptr);
    for (int time = 0; time < 2; ++time) {  // the second merge adds nothing
      test::DialogAnswer answer(dir_.path(), away);
      action->trigger();  // returns once the dialog is answered
      QVERIFY(answer.answered());
      QCOMPARE(window.lastError(), QString());
      const auto runs = window.store()->listRuns();
      QCOMPARE(runs.size(), size_t{1});
      QCOMPARE(window.store()->series(runs.front().id).steps.size(), size_t{12});
    }
    // Not a store: one sentence naming the file, nothing merged.
    const QString notes = dir_.filePath("notes.sqlite");
    QFile f(notes);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("step,loss\n1,0.5\n");
    f.close();
    test::DialogAnswer answer(dir_.path(), notes);
    action->trigger();
    QVERIFY(answer.answered());
    QVERIFY2(window.lastError().contains(notes + " is not an SQLite database"),
             qPrintable(window.lastError()));
    QCOMPARE(window.store()->listRuns().size(), size_t{1});
  }

 private:
  QTemporaryDir dir_;
};

QTEST_MAIN(MergeStoreTest)
#include "merge_store_test.moc"
