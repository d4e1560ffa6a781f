// SPDX-License-Identifier: GPL-3.0-or-later
// The experiment panel's options that only a config carried before: the text options of the
// "Data and model" group (ui/experiment/text_options.cpp), shown for text data only, and the
// "arms at once" box; each set from a config or preset and written back into the panel's.
#include "experiment/text_options.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolTip>

#include <QFile>
#include <QTemporaryDir>

#include "accumlab/training_rules.h"
#include "experiment/experiment_panel.h"
#include "experiment/source_pickers.h"
#include "ui_test_support.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

/// A text file in `dir` of five lines: 3, 3, 3 and 40 bytes, and one of 300, which a limit of
/// 256 cuts; its path, or empty when it cannot be written.
QString writeLines(const QTemporaryDir& dir) {
  const QString path = dir.filePath("lines.txt");
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return QString();
  f.write("abc\nabc\nabc\n" + QByteArray(40, 'x') + "\n" + QByteArray(300, 'y') + "\n");
  return path;
}

}  // namespace

class ExperimentPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void areShownForTextDataOnly() {
    ExperimentPanel panel;
    panel.resize(360, 900);
    panel.show();
    auto* options = panel.findChild<TextOptions*>();
    QVERIFY(options != nullptr);
    ExperimentConfig c;  // spirals
    panel.setConfig(c);
    QVERIFY(!options->isVisible());
    c = presetExperiment("fortunes");
    panel.setConfig(c);
    QVERIFY(options->isVisible());
    // The fortunes are one quote each: their split is shown but takes no edit.
    auto* split = options->findChild<QComboBox*>("text_split");
    QVERIFY(split != nullptr && !split->isEnabled());
    c.data = "text:/tmp/notes.txt";
    panel.setConfig(c);
    QVERIFY(options->isVisible());
    QVERIFY(split->isEnabled());
  }

  void roundTripThroughThePanelsConfig() {
    ExperimentPanel panel;
    ExperimentConfig c = presetExperiment("fortunes");
    c.text_split = TextSplit::kParagraph;
    c.max_len = 512;
    c.token_loss = TokenLoss::kSequences;
    panel.setConfig(c);
    auto* split = panel.findChild<QComboBox*>("text_split");
    auto* max_len = panel.findChild<QSpinBox*>("max_len");
    auto* token_loss = panel.findChild<QComboBox*>("token_loss");
    QVERIFY(split && max_len && token_loss);
    QCOMPARE(split->currentText(), QStringLiteral("paragraph"));
    QCOMPARE(max_len->value(), 512);
    QCOMPARE(token_loss->currentText(), QStringLiteral("sequences"));
    ExperimentConfig out = panel.config();
    QVERIFY(out.text_split == TextSplit::kParagraph);
    QCOMPARE(out.max_len, int64_t{512});
    QVERIFY(out.token_loss == TokenLoss::kSequences);

    // An edit reaches the config and says so.
    QSignalSpy edited(&panel, &ExperimentPanel::configEdited);
    token_loss->setCurrentIndex(token_loss->findText("tokens"));
    max_len->setValue(kMaxTextLength);
    QVERIFY(edited.count() >= 2);
    out = panel.config();
    QVERIFY(out.token_loss == TokenLoss::kTokens);
    QCOMPARE(out.max_len, kMaxTextLength);
    QCOMPARE(max_len->maximum(), static_cast<int>(kMaxTextLength));
    // The tooltip says the other objective is not the big batch.
    QVERIFY(token_loss->toolTip().contains("not the big batch"));
  }

  void everyOptimizerSettingRoundTrips() {
    ExperimentPanel panel;
    panel.resize(380, 1200);
    panel.show();
    ExperimentConfig c = defaultExperiment();
    c.optimizer.kind = OptimizerKind::kAdamW;
    c.optimizer.beta1 = 0.85;
    c.optimizer.beta2 = 0.995;
    c.optimizer.eps = 1e-6;  // not shown: kept
    c.optimizer.weight_decay = 0.01;
    c.optimizer.schedule = LrSchedule::kStep;
    c.optimizer.step_every_samples = 12000;
    c.optimizer.step_gamma = 0.5;
    c.optimizer.warmup_samples = 3000;
    c.optimizer.clip_norm = 1.5;
    c.keep_weights = false;
    c.arms.push_back(ArmKind::kPitfallClipEach);
    c.arms.push_back(ArmKind::kPitfallSchedulePerMicro);
    panel.setConfig(c);
    QCOMPARE(configToJson(panel.config()), configToJson(c));
    // The rows that do not apply are hidden: momentum for Adam, the step's period for cosine.
    auto* momentum = panel.findChild<QDoubleSpinBox*>("momentum");
    auto* beta1 = panel.findChild<QDoubleSpinBox*>("beta1");
    auto* step_every = panel.findChild<QSpinBox*>("stepEvery");
    QVERIFY(momentum && beta1 && step_every);
    QVERIFY(!momentum->isVisible() && beta1->isVisible() && step_every->isVisible());
    auto* schedule = panel.findChild<QComboBox*>("lrSchedule");
    QSignalSpy edited(&panel, &ExperimentPanel::configEdited);
    schedule->setCurrentIndex(schedule->findText("cosine"));
    QVERIFY(edited.count() >= 1);
    QVERIFY(!step_every->isVisible());
    QVERIFY(panel.config().optimizer.schedule == LrSchedule::kCosine);
    // A wrong recipe that needs a clip norm is offered only while there is one.
    auto* clip = panel.findChild<QDoubleSpinBox*>("clipNorm");
    clip->setValue(0);
    QCOMPARE(clip->text(), QStringLiteral("off"));
    const std::vector<ArmKind> arms = panel.config().arms;
    QVERIFY(std::find(arms.begin(), arms.end(), ArmKind::kPitfallClipEach) == arms.end());
    QVERIFY(std::find(arms.begin(), arms.end(), ArmKind::kPitfallSchedulePerMicro) != arms.end());
    validateConfig(panel.config());  // what the form gives can run
  }

  void pickingTextDataPicksATextModel() {
    ExperimentPanel panel;
    panel.setConfig(defaultExperiment());
    auto* data = panel.findChild<QComboBox*>("dataset");
    QVERIFY(data);
    auto pick = [&](const QString& spec) {
      const int i = data->findData(spec);
      QVERIFY2(i >= 0, qPrintable(spec));
      data->setCurrentIndex(i);
      emit data->activated(i);
    };
    pick("fortunes");
    QVERIFY2(panel.config().model.rfind("charlm", 0) == 0, panel.config().model.c_str());
    validateConfig(panel.config());
    pick("spirals");
    QVERIFY2(panel.config().model.rfind("charlm", 0) != 0, panel.config().model.c_str());
    validateConfig(panel.config());
  }

  void aFileThatDoesNotLoadIsSaidAtOnceAndLeavesThePicker() {
    QTemporaryDir dir;
    const QString path = dir.filePath("broken.csv");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("x1,x2,label\n0.5,0.25,1\n0.1,oops,0\n");
    f.close();
    ExperimentPanel panel;
    panel.setConfig(defaultExperiment());
    const std::string before = panel.config().data;
    QSignalSpy failed(&panel, &ExperimentPanel::openFailed);
    QString error;
    QVERIFY2(panel.openPath(path, &error), qPrintable(error));  // a CSV by its name
    QCOMPARE(QString::fromStdString(panel.config().data), "csv:" + path);
    // The probe reads it at once; its error names the file, and the entry is gone.
    QVERIFY(failed.wait(20000) || failed.count() == 1);
    const QString message = failed.front().front().toString();
    QVERIFY2(message.contains(path), qPrintable(message));
    QCOMPARE(panel.config().data, before);
    auto* data = panel.findChild<QComboBox*>("dataset");
    QCOMPARE(data->findData("csv:" + path), -1);
  }

  void armsAtOnceFollowTheConfig() {
    ExperimentPanel panel;
    auto* box = panel.findChild<QCheckBox*>("arms_at_once");
    QVERIFY(box != nullptr);
    panel.setConfig(defaultExperiment());  // the demo trains its arms at once
    QVERIFY(box->isChecked());
    QCOMPARE(panel.config().arm_threads, 0);
    box->setChecked(false);
    QCOMPARE(panel.config().arm_threads, 1);
    ExperimentConfig c;
    c.arm_threads = 3;  // a count from a config file is kept while ticked
    panel.setConfig(c);
    QVERIFY(box->isChecked());
    QCOMPARE(panel.config().arm_threads, 3);
    c.arm_threads = 1;
    panel.setConfig(c);
    QVERIFY(!box->isChecked());
    box->setChecked(true);
    QCOMPARE(panel.config().arm_threads, 0);
  }

  void theArmsAndTheBatchLabelsComeFromTheConfig() {
    ExperimentPanel panel;
    ExperimentConfig c;
    c.arms = {ArmKind::kAccum, ArmKind::kBigBatch, ArmKind::kPitfallSum};
    c.micro_batch = 4;
    c.accum = 3;
    c.workers = 2;
    c.optimizer.lr = 0.02;
    c.optimizer.scaling = LrScaling::kLinear;
    panel.setConfig(c);
    QVERIFY(panel.config().arms == c.arms);
    QCOMPARE(effectiveBatch(panel.config()), int64_t{24});
    // The labels count an update as the config does: K on each of the N workers.
    QStringList texts;
    for (const QLabel* label : panel.findChildren<QLabel*>()) texts << label->text();
    QVERIFY2(texts.contains("effective batch m·K·N = <b>24</b>"), qPrintable(texts.join('|')));
    QVERIFY2(texts.contains("no-accum: 0.02 · accum, big-batch: 0.12 (×K)"),
             qPrintable(texts.join('|')));
    // One check box per arm of the comparison, coloured and explained.
    QStringList arms;
    for (const QCheckBox* box : panel.findChildren<QCheckBox*>()) {
      if (!box->styleSheet().isEmpty()) arms << box->text() + ": " + box->toolTip();
    }
    QCOMPARE(arms.size(), 3);
    QVERIFY(arms[0].startsWith("no-accum: m samples per update"));
    QVERIFY(arms[2].startsWith("big-batch: one real batch of m·K"));
    // Each window policy says what it does to the short last window.
    QComboBox* policies = nullptr;
    for (QComboBox* combo : panel.findChildren<QComboBox*>()) {
      if (combo->findText("flush-divide-by-K") >= 0) policies = combo;
    }
    QVERIFY(policies != nullptr);
    QCOMPARE(policies->count(), 4);
    for (int i = 0; i < policies->count(); ++i) {
      QVERIFY(!policies->itemData(i, Qt::ToolTipRole).toString().isEmpty());
    }
    QVERIFY(policies->itemData(policies->findText("drop"), Qt::ToolTipRole)
                .toString()
                .contains("discarded"));
  }

  void theDatasetTooltipShowsTheLengths() {
    QTemporaryDir dir;
    const QString path = writeLines(dir);
    QVERIFY(!path.isEmpty());
    ExperimentPanel panel;
    ExperimentConfig c = presetExperiment("fortunes");
    c.data = "text:" + path.toStdString();
    panel.setConfig(c);
    auto* pickers = panel.findChild<SourcePickers*>();
    QVERIFY(pickers != nullptr);
    const QString tip = pickers->dataToolTip();
    QVERIFY2(tip.contains("5 sequences, median 3 bytes, longest 256; 1 cut to 256"),
             qPrintable(tip));
    QVERIFY2(tip.contains("1–32") && tip.contains("█ 3"), qPrintable(tip));
    // Another limit, another histogram.
    c.max_len = 64;
    panel.setConfig(c);
    QVERIFY2(pickers->dataToolTip().contains("longest 64; 1 cut to 64"),
             qPrintable(pickers->dataToolTip()));
    // A missing file: the sentence loading would give, not a crash.
    c.data = "text:" + dir.filePath("gone.txt").toStdString();
    panel.setConfig(c);
    QVERIFY2(pickers->dataToolTip().contains("gone.txt"), qPrintable(pickers->dataToolTip()));
  }

  void theOpenListsTextEntriesShowTheirLengths() {
    QTemporaryDir dir;
    const QString path = writeLines(dir);
    QVERIFY(!path.isEmpty());
    ExperimentPanel panel;
    panel.resize(360, 900);
    ExperimentConfig c = presetExperiment("fortunes");
    c.data = "text:" + path.toStdString();
    panel.setConfig(c);  // the file joins the list
    c.data = "spirals";
    panel.setConfig(c);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* data = panel.findChild<QComboBox*>("dataset");
    QVERIFY(data != nullptr);
    data->showPopup();
    QAbstractItemView* list = data->view();
    QVERIFY(QTest::qWaitForWindowExposed(list->window()));
    // Hovering an entry of the open list: its own tooltip, and for text its lengths under the
    // options shown, whichever entry is chosen.
    const auto hover = [&](const QString& spec) {
      const int row = data->findData(spec);
      if (row < 0) return QString("no entry %1").arg(spec);
      const QPoint at = list->visualRect(list->model()->index(row, 0)).center();
      QToolTip::hideText();
      QHelpEvent help(QEvent::ToolTip, at, list->viewport()->mapToGlobal(at));
      QApplication::sendEvent(list->viewport(), &help);
      return QToolTip::text();
    };
    QString tip = hover("text:" + path);
    QVERIFY2(tip.contains("5 sequences, median 3 bytes, longest 256; 1 cut to 256"),
             qPrintable(tip));
    QVERIFY2(!hover("spirals").contains("sequences") && hover("spirals").contains("spirals"),
             qPrintable(hover("spirals")));
    QVERIFY(!pickers(panel)->dataToolTip().contains("sequences"));  // spirals is chosen
    if (data->findData("fortunes") >= 0) {
      tip = hover("fortunes");
      QVERIFY2(tip.contains("Quotes from") && tip.contains(" sequences, median ") &&
                   tip.contains("left out") && tip.contains("█"),
               qPrintable(tip));
    }
    data->hidePopup();
  }

 private:
  static SourcePickers* pickers(const ExperimentPanel& panel) {
    return panel.findChild<SourcePickers*>();
  }
};

QTEST_MAIN(ExperimentPanelTest)
#include "experiment_panel_test.moc"
