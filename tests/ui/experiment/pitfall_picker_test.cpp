// SPDX-License-Identifier: GPL-3.0-or-later
// "Common mistakes" (ui/experiment/pitfall_picker.cpp): the pitfall arms a config holds are
// chosen, those it cannot run are greyed out with the reason, and a choice reaches the config.
#include "experiment/pitfall_picker.h"

#include <QAction>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>

#include "experiment/experiment_panel.h"
#include "ui_test_support.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

QAction* actionOf(PitfallPicker& picker, ArmKind arm) {
  for (QAction* a : picker.menu()->actions()) {
    if (a->data().toInt() == static_cast<int>(arm)) return a;
  }
  return nullptr;
}

}  // namespace

class PitfallPickerTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void greysOutWhatTheConfigCannotRun() {
    PitfallPicker picker;
    ExperimentConfig c;
    c.arms = {ArmKind::kAccum, ArmKind::kPitfallSum};
    picker.setConfig(c);
    QCOMPARE(picker.chosen(), std::vector<ArmKind>{ArmKind::kPitfallSum});
    QCOMPARE(picker.text(), QStringLiteral("Common mistakes (1)"));
    QAction* clip = actionOf(picker, ArmKind::kPitfallClipEach);
    QAction* schedule = actionOf(picker, ArmKind::kPitfallSchedulePerMicro);
    QVERIFY(clip && schedule);
    QVERIFY(!clip->isEnabled());
    QVERIFY2(clip->toolTip().contains("clip norm"), qPrintable(clip->toolTip()));
    QVERIFY(!schedule->isEnabled());
    QVERIFY(actionOf(picker, ArmKind::kPitfallSum)->isEnabled());
    c.optimizer.clip_norm = 1.0;
    c.optimizer.schedule = LrSchedule::kCosine;
    picker.setConfig(c);
    QVERIFY(clip->isEnabled());
    QVERIFY(schedule->isEnabled());
    QVERIFY(!clip->toolTip().contains("Not here"));
  }

  void aChoiceReachesThePanelsConfig() {
    ExperimentPanel panel;
    ExperimentConfig c;
    c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
    panel.setConfig(c);
    auto* picker = panel.findChild<PitfallPicker*>("pitfallPicker");
    QVERIFY(picker);
    QSignalSpy edited(&panel, &ExperimentPanel::configEdited);
    actionOf(*picker, ArmKind::kPitfallMeanOfMeans)->setChecked(true);
    QCOMPARE(edited.count(), 1);
    const std::vector<ArmKind> want = {ArmKind::kAccum, ArmKind::kBigBatch,
                                       ArmKind::kPitfallMeanOfMeans};
    QCOMPARE(panel.config().arms, want);
  }
};

QTEST_MAIN(PitfallPickerTest)
#include "pitfall_picker_test.moc"
