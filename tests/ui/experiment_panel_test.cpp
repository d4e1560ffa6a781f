// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/training_rules.h"
// The experiment panel's options that only a config carried before: the text options of the
#include "accumlab/training_rules.h"
// "Data and model" group (ui/experiment/text_options.cpp), shown for text data only, and the
#include "accumlab/training_rules.h"
// "arms at once" box; each set from a config or preset and written back into the panel's.
#include "accumlab/training_rules.h"
#include "experiment/text_options.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolTip>
#include "accumlab/training_rules.h"

#include <QFile>
#include <QTemporaryDir>
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
#include "experiment/experiment_panel.h"
#include "experiment/source_pickers.h"
#include "ui_test_support.h"

#include "accumlab/training_rules.h"
using namespace accumlab;
#include "accumlab/training_rules.h"
using namespace accumlab::ui;
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
namespace {
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
/// A text file in `dir` of five lines: 3, 3, 3 and 40 bytes, and one of 300, which a limit of
#include "accumlab/training_rules.h"
/// 256 cuts; its path, or empty when it cannot be written.
#include "accumlab/training_rules.h"
QString writeLines(const QTemporaryDir& dir) {
#include "accumlab/training_rules.h"
  const QString path = dir.filePath("lines.txt");
#include "accumlab/training_rules.h"
  QFile f(path);
#include "accumlab/training_rules.h"
  if (!f.open(QIODevice::WriteOnly)) return QString();
#include "accumlab/training_rules.h"
  f.write("abc\nabc\nabc\n" + QByteArray(40, 'x') + "\n" + QByteArray(300, 'y') + "\n");
#include "accumlab/training_rules.h"
  return path;
#include "accumlab/training_rules.h"
}
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
}  // namespace
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
class ExperimentPanelTest : public QObject {
#include "accumlab/training_rules.h"
  Q_OBJECT
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
 private slots:
#include "accumlab/training_rules.h"
  void initTestCase() { test::isolateSettings(); }
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
  void areShownForTextDataOnly() {
#include "accumlab/training_rules.h"
    ExperimentPanel panel;
#include "accumlab/training_rules.h"
    panel.resize(360, 900);
#include "accumlab/training_rules.h"
    panel.show();
#include "accumlab/training_rules.h"
    auto* options = panel.findChild<TextOptions*>();
#include "accumlab/training_rules.h"
    QVERIFY(options != nullptr);
#include "accumlab/training_rules.h"
    ExperimentConfig c;  // spirals
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    QVERIFY(!options->isVisible());
#include "accumlab/training_rules.h"
    c = presetExperiment("fortunes");
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    QVERIFY(options->isVisible());
#include "accumlab/training_rules.h"
    // The fortunes are one quote each: their split is shown but takes no edit.
#include "accumlab/training_rules.h"
    auto* split = options->findChild<QComboBox*>("text_split");
#include "accumlab/training_rules.h"
    QVERIFY(split != nullptr && !split->isEnabled());
#include "accumlab/training_rules.h"
    c.data = "text:/tmp/notes.txt";
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    QVERIFY(options->isVisible());
#include "accumlab/training_rules.h"
    QVERIFY(split->isEnabled());
#include "accumlab/training_rules.h"
  }
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
  void roundTripThroughThePanelsConfig() {
#include "accumlab/training_rules.h"
    ExperimentPanel panel;
#include "accumlab/training_rules.h"
    ExperimentConfig c = presetExperiment("fortunes");
#include "accumlab/training_rules.h"
    c.text_split = TextSplit::kParagraph;
#include "accumlab/training_rules.h"
    c.max_len = 512;
#include "accumlab/training_rules.h"
    c.token_loss = TokenLoss::kSequences;
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    auto* split = panel.findChild<QComboBox*>("text_split");
#include "accumlab/training_rules.h"
    auto* max_len = panel.findChild<QSpinBox*>("max_len");
#include "accumlab/training_rules.h"
    auto* token_loss = panel.findChild<QComboBox*>("token_loss");
#include "accumlab/training_rules.h"
    QVERIFY(split && max_len && token_loss);
#include "accumlab/training_rules.h"
    QCOMPARE(split->currentText(), QStringLiteral("paragraph"));
#include "accumlab/training_rules.h"
    QCOMPARE(max_len->value(), 512);
#include "accumlab/training_rules.h"
    QCOMPARE(token_loss->currentText(), QStringLiteral("sequences"));
#include "accumlab/training_rules.h"
    ExperimentConfig out = panel.config();
#include "accumlab/training_rules.h"
    QVERIFY(out.text_split == TextSplit::kParagraph);
#include "accumlab/training_rules.h"
    QCOMPARE(out.max_len, int64_t{512});
#include "accumlab/training_rules.h"
    QVERIFY(out.token_loss == TokenLoss::kSequences);
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
    // An edit reaches the config and says so.
#include "accumlab/training_rules.h"
    QSignalSpy edited(&panel, &ExperimentPanel::configEdited);
#include "accumlab/training_rules.h"
    token_loss->setCurrentIndex(token_loss->findText("tokens"));
#include "accumlab/training_rules.h"
    max_len->setValue(kMaxTextLength);
#include "accumlab/training_rules.h"
    QVERIFY(edited.count() >= 2);
#include "accumlab/training_rules.h"
    out = panel.config();
#include "accumlab/training_rules.h"
    QVERIFY(out.token_loss == TokenLoss::kTokens);
#include "accumlab/training_rules.h"
    QCOMPARE(out.max_len, kMaxTextLength);
#include "accumlab/training_rules.h"
    QCOMPARE(max_len->maximum(), static_cast<int>(kMaxTextLength));
#include "accumlab/training_rules.h"
    // The tooltip says the other objective is not the big batch.
#include "accumlab/training_rules.h"
    QVERIFY(token_loss->toolTip().contains("not the big batch"));
#include "accumlab/training_rules.h"
  }
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
  void armsAtOnceFollowTheConfig() {
#include "accumlab/training_rules.h"
    ExperimentPanel panel;
#include "accumlab/training_rules.h"
    auto* box = panel.findChild<QCheckBox*>("arms_at_once");
#include "accumlab/training_rules.h"
    QVERIFY(box != nullptr);
#include "accumlab/training_rules.h"
    panel.setConfig(defaultExperiment());  // the demo trains its arms at once
#include "accumlab/training_rules.h"
    QVERIFY(box->isChecked());
#include "accumlab/training_rules.h"
    QCOMPARE(panel.config().arm_threads, 0);
#include "accumlab/training_rules.h"
    box->setChecked(false);
#include "accumlab/training_rules.h"
    QCOMPARE(panel.config().arm_threads, 1);
#include "accumlab/training_rules.h"
    ExperimentConfig c;
#include "accumlab/training_rules.h"
    c.arm_threads = 3;  // a count from a config file is kept while ticked
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    QVERIFY(box->isChecked());
#include "accumlab/training_rules.h"
    QCOMPARE(panel.config().arm_threads, 3);
#include "accumlab/training_rules.h"
    c.arm_threads = 1;
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    QVERIFY(!box->isChecked());
#include "accumlab/training_rules.h"
    box->setChecked(true);
#include "accumlab/training_rules.h"
    QCOMPARE(panel.config().arm_threads, 0);
#include "accumlab/training_rules.h"
  }
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
  void theDatasetTooltipShowsTheLengths() {
#include "accumlab/training_rules.h"
    QTemporaryDir dir;
#include "accumlab/training_rules.h"
    const QString path = writeLines(dir);
#include "accumlab/training_rules.h"
    QVERIFY(!path.isEmpty());
#include "accumlab/training_rules.h"
    ExperimentPanel panel;
#include "accumlab/training_rules.h"
    ExperimentConfig c = presetExperiment("fortunes");
#include "accumlab/training_rules.h"
    c.data = "text:" + path.toStdString();
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    auto* pickers = panel.findChild<SourcePickers*>();
#include "accumlab/training_rules.h"
    QVERIFY(pickers != nullptr);
#include "accumlab/training_rules.h"
    const QString tip = pickers->dataToolTip();
#include "accumlab/training_rules.h"
    QVERIFY2(tip.contains("5 sequences, median 3 bytes, longest 256; 1 cut to 256"),
#include "accumlab/training_rules.h"
             qPrintable(tip));
#include "accumlab/training_rules.h"
    QVERIFY2(tip.contains("1–32") && tip.contains("█ 3"), qPrintable(tip));
#include "accumlab/training_rules.h"
    // Another limit, another histogram.
#include "accumlab/training_rules.h"
    c.max_len = 64;
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    QVERIFY2(pickers->dataToolTip().contains("longest 64; 1 cut to 64"),
#include "accumlab/training_rules.h"
             qPrintable(pickers->dataToolTip()));
#include "accumlab/training_rules.h"
    // A missing file: the sentence loading would give, not a crash.
#include "accumlab/training_rules.h"
    c.data = "text:" + dir.filePath("gone.txt").toStdString();
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    QVERIFY2(pickers->dataToolTip().contains("gone.txt"), qPrintable(pickers->dataToolTip()));
#include "accumlab/training_rules.h"
  }
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
  void theOpenListsTextEntriesShowTheirLengths() {
#include "accumlab/training_rules.h"
    QTemporaryDir dir;
#include "accumlab/training_rules.h"
    const QString path = writeLines(dir);
#include "accumlab/training_rules.h"
    QVERIFY(!path.isEmpty());
#include "accumlab/training_rules.h"
    ExperimentPanel panel;
#include "accumlab/training_rules.h"
    panel.resize(360, 900);
#include "accumlab/training_rules.h"
    ExperimentConfig c = presetExperiment("fortunes");
#include "accumlab/training_rules.h"
    c.data = "text:" + path.toStdString();
#include "accumlab/training_rules.h"
    panel.setConfig(c);  // the file joins the list
#include "accumlab/training_rules.h"
    c.data = "spirals";
#include "accumlab/training_rules.h"
    panel.setConfig(c);
#include "accumlab/training_rules.h"
    panel.show();
#include "accumlab/training_rules.h"
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
#include "accumlab/training_rules.h"
    auto* data = panel.findChild<QComboBox*>("dataset");
#include "accumlab/training_rules.h"
    QVERIFY(data != nullptr);
#include "accumlab/training_rules.h"
    data->showPopup();
#include "accumlab/training_rules.h"
    QAbstractItemView* list = data->view();
#include "accumlab/training_rules.h"
    QVERIFY(QTest::qWaitForWindowExposed(list->window()));
#include "accumlab/training_rules.h"
    // Hovering an entry of the open list: its own tooltip, and for text its lengths under the
#include "accumlab/training_rules.h"
    // options shown, whichever entry is chosen.
#include "accumlab/training_rules.h"
    const auto hover = [&](const QString& spec) {
#include "accumlab/training_rules.h"
      const int row = data->findData(spec);
#include "accumlab/training_rules.h"
      if (row < 0) return QString("no entry %1").arg(spec);
#include "accumlab/training_rules.h"
      const QPoint at = list->visualRect(list->model()->index(row, 0)).center();
#include "accumlab/training_rules.h"
      QToolTip::hideText();
#include "accumlab/training_rules.h"
      QHelpEvent help(QEvent::ToolTip, at, list->viewport()->mapToGlobal(at));
#include "accumlab/training_rules.h"
      QApplication::sendEvent(list->viewport(), &help);
#include "accumlab/training_rules.h"
      return QToolTip::text();
#include "accumlab/training_rules.h"
    };
#include "accumlab/training_rules.h"
    QString tip = hover("text:" + path);
#include "accumlab/training_rules.h"
    QVERIFY2(tip.contains("5 sequences, median 3 bytes, longest 256; 1 cut to 256"),
#include "accumlab/training_rules.h"
             qPrintable(tip));
#include "accumlab/training_rules.h"
    QVERIFY2(!hover("spirals").contains("sequences") && hover("spirals").contains("spirals"),
#include "accumlab/training_rules.h"
             qPrintable(hover("spirals")));
#include "accumlab/training_rules.h"
    QVERIFY(!pickers(panel)->dataToolTip().contains("sequences"));  // spirals is chosen
#include "accumlab/training_rules.h"
    if (data->findData("fortunes") >= 0) {
#include "accumlab/training_rules.h"
      tip = hover("fortunes");
#include "accumlab/training_rules.h"
      QVERIFY2(tip.contains("Quotes from") && tip.contains(" sequences, median ") &&
#include "accumlab/training_rules.h"
                   tip.contains("left out") && tip.contains("█"),
#include "accumlab/training_rules.h"
               qPrintable(tip));
#include "accumlab/training_rules.h"
    }
#include "accumlab/training_rules.h"
    data->hidePopup();
#include "accumlab/training_rules.h"
  }
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
 private:
#include "accumlab/training_rules.h"
  static SourcePickers* pickers(const ExperimentPanel& panel) {
#include "accumlab/training_rules.h"
    return panel.findChild<SourcePickers*>();
#include "accumlab/training_rules.h"
  }
#include "accumlab/training_rules.h"
};
#include "accumlab/training_rules.h"

#include "accumlab/training_rules.h"
QTEST_MAIN(ExperimentPanelTest)
#include "accumlab/training_rules.h"
#include "experiment_panel_test.moc"
