// SPDX-License-Identifier: GPL-3.0-or-later
// File → Save trained model…: the selected run's kept model is written, byte for byte, where the
// Save dialog says; no selection, several, or a run that kept none is one sentence
// (docs/store.md#trained-models).
#include <QAction>
#include <QFile>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "accumlab/run_store.h"
#include "files/model_save_action.h"
#include "ui_test_support.h"
#include "window/main_window.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

/// The bytes the accum run keeps as its model (any bytes: the store does not look inside).
const std::string kModelBytes = std::string("a TorchScript archive\0with a NUL", 32);

/// Stores a finished experiment of no-accum and accum; only accum kept a model. Returns the
/// runs' ids, no-accum first.
std::vector<int64_t> storeTwoArms(const QString& db) {
  RunInfo info;
  info.config.data = "spirals";
  info.config.model = "mlp";
  info.config.arms = {ArmKind::kNoAccum, ArmKind::kAccum};
  StoreSink sink(db.toStdString());
  sink.onRunStarted(info);
  RunSummary summary;
  summary.info = info;
  for (ArmKind arm : info.config.arms) {
    ArmSummary a;
    a.arm = arm;
    a.status = ArmStatus::kFinished;
    sink.onArmFinished(a);
    summary.arms.push_back(a);
  }
  ArmWeights w;
  w.arm = ArmKind::kAccum;
  w.data = kModelBytes;
  sink.onArmWeights(w);
  sink.onRunFinished(summary);
  sink.finish();
  return {sink.runs()[0].run_id, sink.runs()[1].run_id};
}

QByteArray fileBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class ModelSaveActionTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
  }

  void theFileMenuHasIt() {
    MainWindow window;
    auto* action = window.findChild<QAction*>("saveTrainedModel");
    QVERIFY(action != nullptr);
    bool in_file_menu = false;
    for (QAction* menu : window.menuBar()->actions()) {
      if (menu->menu() && menu->menu()->actions().contains(action)) in_file_menu = true;
    }
    QVERIFY(in_file_menu);
  }

  void savesTheSelectedRunsModelWhereTheDialogSays() {
    const QString db = dir_.filePath("runs.sqlite");
    const auto ids = storeTwoArms(db);
    RunStore store(db.toStdString());
    std::vector<int64_t> selected = {ids[1]};
    QWidget window;
    ModelSaveAction action(
        &window, [&] { return selected; }, [&] { return &store; });
    QSignalSpy saved(&action, &ModelSaveAction::saved);
    QSignalSpy failed(&action, &ModelSaveAction::errorOccurred);
    {
      test::DialogAnswer answer(dir_.path(), "accum.pt");
      action.action()->trigger();  // returns once the dialog is answered
      QVERIFY(answer.answered());
    }
    QCOMPARE(failed.count(), 0);
    QCOMPARE(saved.count(), 1);
    QCOMPARE(fileBytes(dir_.filePath("accum.pt")),
             QByteArray(kModelBytes.data(), static_cast<int>(kModelBytes.size())));

    // No-accum kept no model: one sentence, no file.
    QVERIFY(!action.saveTo(ids[0], dir_.filePath("none.pt")));
    QCOMPARE(failed.count(), 1);
    const QString why = failed.takeFirst().at(0).toString();
    QVERIFY2(why.contains("has no trained model") && !why.contains('\n'), qPrintable(why));
    QVERIFY(!QFile::exists(dir_.filePath("none.pt")));

    // Nothing or two runs selected: asks for one, opens no dialog.
    for (const std::vector<int64_t>& pick : {std::vector<int64_t>{}, ids}) {
      selected = pick;
      action.save();
      QCOMPARE(failed.count(), 1);
      QVERIFY(failed.takeFirst().at(0).toString().contains("Select one run"));
    }
  }

 private:
  QTemporaryDir dir_;
};

QTEST_MAIN(ModelSaveActionTest)
#include "model_save_action_test.moc"
