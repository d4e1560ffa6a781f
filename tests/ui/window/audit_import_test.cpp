// SPDX-License-Identifier: GPL-3.0-or-later
// File → Import audit…: an audit file of a user's own loop is stored beside its reference,
// opened, and its verdict shown on a card; a bad file is one sentence and the store is
// untouched (docs/audit.md).
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTest>

#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "series/run_data.h"
#include "series/shown_runs.h"
#include "ui_test_support.h"
#include "window/app_options.h"
#include "window/audit_import.h"
#include "window/main_window.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

/// A version-1 audit file of a loop that sums its micro-batch losses (python/accumlab's
/// format): two windows of 4 micro-batches, each 3.0 off the big batch and matching `sum`.
QByteArray sumAudit() {
  QByteArray text =
      R"({"format": "accumlab-audit", "version": 1, "torch": "1.13.0", "dtype": "float32", )"
      R"("model": "Mlp", "parameters": 99, "loss": "CrossEntropyLoss", "reduction": "mean", )"
      R"("optimizer": "SGD", "scaler": false, "every": 1, "tolerance": 1e-05, )"
      R"("batch_dependent": [], "stochastic": false})"
      "\n";
  for (int t = 1; t <= 2; ++t) {
    text += QByteArray(R"({"window": )") + QByteArray::number(t) +
            R"(, "audited": true, "irregular": null, "rows": [8, 8, 8, 8], )"
            R"("counts": [8, 8, 8, 8], "unit": "samples", "lrs": [0.1, 0.1, 0.1, 0.1], )"
            R"("lr": 0.1, "loss": 1.2, "ref_norm": 0.5, "loop_norm": 2.0, "rel_diff": 3.0, )"
            R"("scale": 4.0, "cosine": 1.0, "recipes": {"sum": 1e-08, "last-only": 2.1, )"
            R"("double-last": 0.4, "mean-of-means": 3.0, "no-zero": null, "clip-each": null}, )"
            R"("match": ["sum"]})"
            "\n";
  }
  return text + R"({"end": {"windows": 2, "audited": 2}})"
                "\n";
}

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(text);
  return path;
}

}  // namespace

class AuditImportTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
  }

  void anAuditIsStoredBesideItsReferenceWithItsVerdict() {
    const QString db = dir_.filePath("import.sqlite");
    const ImportedAudit a = importAudit(write(dir_, "sum.jsonl", sumAudit()), db);
    QCOMPARE(QString::fromStdString(a.verdict.verdict), QString("sum"));
    QCOMPARE(a.run_ids.size(), size_t{2});
    RunStore store(db.toStdString());
    QStringList names;
    for (const RunRow& r : store.listRuns()) names << QString::fromStdString(r.name);
    names.sort();
    QCOMPARE(names, QStringList({"reference (exact big batch)", "your loop"}));
    const RunDetail loop = store.run(a.run_ids.back());
    QVERIFY2(loop.note.find("wrong recipe sum") != std::string::npos, loop.note.c_str());
    QCOMPARE(store.series(a.run_ids.back()).steps.size(), size_t{2});
    const QString card = verdictCardText(a.verdict);
    QVERIFY2(card.contains("sum") && card.contains("wrong recipe"), qPrintable(card));
  }

  void aBadFileIsOneSentenceAndTheStoreIsUntouched() {
    const QString db = dir_.filePath("untouched.sqlite");
    QByteArray wrong = sumAudit();
    wrong.replace("\"version\": 1", "\"version\": 9");
    const QByteArray truncated = sumAudit().left(sumAudit().size() - 10);
    for (const auto& [name, text] : {std::pair<QString, QByteArray>{"version.jsonl", wrong},
                                     {"cut.jsonl", truncated},
                                     {"garbage.jsonl", QByteArray("\x01\x02 not json\n")}}) {
      const QString path = write(dir_, name, text);
      try {
        importAudit(path, db);
        QFAIL(qPrintable(name + " was imported"));
      } catch (const InputError& e) {
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.contains(path) && !message.contains('\n'), qPrintable(message));
      }
    }
    QVERIFY2(!QFile::exists(db), "a bad audit file created the store");
  }

  void fileImportAuditOpensTheRunsAndShowsTheVerdictCard() {
    const QString db = dir_.filePath("window.sqlite");
    const QString path = write(dir_, "window-sum.jsonl", sumAudit());
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = db;
    QVERIFY(window.applyOptions(options));
    QAction* action = window.menuBar()->findChild<QAction*>("importAudit");
    QVERIFY(action != nullptr);
    // Answer the file dialog the action opens with the audit file, as a person would.
    test::DialogAnswer answer(dir_.path(), path);
    action->trigger();  // returns once the dialog is answered
    QVERIFY(answer.answered());
    QCOMPARE(window.lastError(), QString());
    QCOMPARE(window.store()->listRuns().size(), size_t{2});
    // One experiment shown with both arms: the reference and the loop, step by step.
    QCOMPARE(window.shownRuns()->runs().size(), size_t{1});
    QCOMPARE(window.shownRuns()->runs().front()->arms.size(), size_t{2});
    QVERIFY(!window.shownRuns()->isLive());
    auto* card = window.findChild<QMessageBox*>("auditVerdictCard");
    QVERIFY(card != nullptr && card->isVisible());
    QVERIFY(card->text().contains("sum"));
  }

 private:
  QTemporaryDir dir_;
};

QTEST_MAIN(AuditImportTest)
#include "audit_import_test.moc"
