// SPDX-License-Identifier: GPL-3.0-or-later
// The store beside other processes: the app performs every action that touches files while
// accumlab-cli processes list, show, export, run and delete on the same store, round after
// round. After each round the store must pass PRAGMA integrity_check (read by another
// process), the app must hold no descriptor of a deleted store file, and every run that any
// process was told is stored must be there with all its step rows.
//
// This process is the app: it builds MainWindow as accumlab's main() does and drives it as a
// user would, file dialogs included (Qt's own dialog, offscreen). tests/ui/CMakeLists.txt
// runs it under store_open_guard, which reports any opening of the store's files that does not
// come from SQLite; a report fails the round.
//
// Environment: ACCUMLAB_CLI (the accumlab-cli to run beside the app), ACCUMLAB_TORTURE_ROUNDS
// (default 20), ACCUMLAB_DIALOG_SHOTS (a folder for pictures of the dialogs),
// ACCUMLAB_GUARD_STORE and ACCUMLAB_GUARD_LOG (store_open_guard's).
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileSystemModel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "accumlab/run_store.h"
#include "controller/training_controller.h"
#include "experiment/experiment_panel.h"
#include "lessons/lesson_panel.h"
#include "plots/metric_canvas.h"
#include "plots/plot_grid.h"
#include "runs/runs_panel.h"
#include "sweep/sweep_panel.h"
#include "ui_test_support.h"
#include "window/app_options.h"
#include "window/export_actions.h"
#include "window/main_window.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

constexpr char kStoreName[] = "S.sqlite";
constexpr int kDefaultRounds = 20;
constexpr int kCliTimeoutMs = 120000;

int roundsToRun() {
  const int n = qEnvironmentVariableIntValue("ACCUMLAB_TORTURE_ROUNDS");
  return n > 0 ? n : kDefaultRounds;
}

/// The environment of the processes beside the app: without the guard, which watches the app.
QProcessEnvironment childEnvironment() {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove("LD_PRELOAD");
  env.insert("OMP_NUM_THREADS", "1");
  return env;
}

/// A command of accumlab-cli running beside the app.
struct CliJob {
  QStringList args;
  std::unique_ptr<QProcess> process;
};

}  // namespace

class StoreTortureTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
    cli_ = qEnvironmentVariable("ACCUMLAB_CLI");
    QVERIFY2(QFile::exists(cli_), "set ACCUMLAB_CLI to accumlab-cli");
    db_ = dir_.filePath(kStoreName);
    guard_log_ = qEnvironmentVariable("ACCUMLAB_GUARD_LOG");
    QFile::remove(guard_log_);
    QFile csv(dir_.filePath("data.csv"));
    QVERIFY(csv.open(QIODevice::WriteOnly));
    csv.write("x1,x2,label\n");
    for (int i = 0; i < 200; ++i) {
      csv.write(QString("%1,%2,%3\n").arg(i * 0.01).arg(1 - i * 0.02).arg(i % 2).toUtf8());
    }
  }

  void everyAppActionBesideOtherProcessesKeepsTheStoreWhole() {
    startApp();
    const int rounds = roundsToRun();
    for (int round = 0; round < rounds; ++round) {
      playRound(round);
      if (QTest::currentTestFailed()) {
        qWarning("round %d of %d failed", round + 1, rounds);
        return;
      }
      checkStore(round);
      if (QTest::currentTestFailed()) {
        qWarning("the store broke in round %d of %d", round + 1, rounds);
        return;
      }
    }
    window_.reset();
    checkStore(rounds);
    qInfo(
        "%d rounds, %d app actions, %d commands beside the app; %zu runs checked, "
        "integrity ok after every round; no deleted store file held, no foreign opening",
        rounds, actions_, commands_, expected_rows_.size());
  }

 private:
  void startApp() {
    window_ = std::make_unique<MainWindow>();
    AppOptions options;
    options.fresh = true;
    options.db = db_;
    QVERIFY(window_->applyOptions(options));
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }

  /// One round: the commands start beside the app, the app goes through its actions, then
  /// the commands are awaited.
  void playRound(int round) {
    std::vector<CliJob> jobs = startCommands(round);
    appRun(round);
    if (QTest::currentTestFailed()) return;
    appActions(round);
    if (QTest::currentTestFailed()) return;
    if (round % 10 == 3) appLesson(round);
    if (round % 10 == 7) appSweep();
    if (QTest::currentTestFailed()) return;
    finishCommands(jobs);
    if (round % 5 == 4) {  // quit and start again, as a user closes the app for the day
      window_->close();
      window_.reset();
      startApp();
      ++actions_;
    }
  }

  std::vector<CliJob> startCommands(int round) {
    std::vector<QStringList> commands = {
        {"list", "--db", db_, "--json"},
        {"run", "--data", "spirals", "--samples", "600", "--micro-batch", "8", "--accum", "4",
         "--arms", "accum,big-batch", "--name", QString("cli-%1").arg(round), "--db", db_, "--json",
         "-q"},
    };
    if (!known_runs_.empty()) {
      const QString some =
          QString::number(*std::next(known_runs_.begin(), round % known_runs_.size()));
      commands.push_back({"show", some, "--db", db_});
      commands.push_back({"export", some, "--format", round % 2 ? "json" : "csv", "--out",
                          dir_.filePath(QString("cli-%1.out").arg(round)), "--db", db_});
    }
    if (!cli_runs_.empty() && round % 2 == 1) {  // a run another command stored earlier
      const int64_t gone = cli_runs_.front();
      cli_runs_.erase(cli_runs_.begin());
      commands.push_back({"delete", QString::number(gone), "--yes", "--db", db_});
      forget(gone);
    }
    std::vector<CliJob> jobs;
    for (const QStringList& args : commands) {
      CliJob job{args, std::make_unique<QProcess>()};
      job.process->setProcessEnvironment(childEnvironment());
      job.process->start(cli_, args);
      jobs.push_back(std::move(job));
      ++commands_;
    }
    return jobs;
  }

  void finishCommands(std::vector<CliJob>& jobs) {
    for (CliJob& job : jobs) {
      QVERIFY2(test::waitUntil([&] { return job.process->state() == QProcess::NotRunning; },
                               kCliTimeoutMs),
               qPrintable("accumlab-cli " + job.args.join(' ') + " did not end"));
      const QString err = QString::fromUtf8(job.process->readAllStandardError());
      QVERIFY2(job.process->exitStatus() == QProcess::NormalExit && job.process->exitCode() == 0,
               qPrintable("accumlab-cli " + job.args.join(' ') + " failed: " + err));
      if (job.args.front() == "run") toldByCli(job.process->readAllStandardOutput());
    }
  }

  /// The runs a `run --json` was told are stored, with their step counts.
  void toldByCli(const QByteArray& out) {
    const QJsonObject summary = QJsonDocument::fromJson(out).object();
    const QJsonObject ids = summary["store"].toObject()["run_ids"].toObject();
    QVERIFY2(!ids.isEmpty(), out.constData());
    for (const QString& arm : ids.keys()) {
      const int64_t id = ids[arm].toInteger();
      expected_rows_[id] = summary["arms"].toObject()[arm].toObject()["steps"].toInteger();
      known_runs_.insert(id);
      cli_runs_.push_back(id);
    }
  }

  /// The app trains one small experiment while the commands work; its file dialogs open in
  /// the store's folder meanwhile, and are cancelled.
  void appRun(int round) {
    ExperimentConfig c = test::smallExperiment(1200);
    c.name = QString("app-%1").arg(round).toStdString();
    c.eval_every = 600;
    window_->experimentPanel()->setConfig(c);
    QSignalSpy finished(window_->controller(), &TrainingController::finished);
    window_->startRun();
    QVERIFY2(window_->controller()->isRunning(), qPrintable(window_->lastError()));
    answerDialog(window_->exportActions()->reportAction(), QString());  // Ctrl+E, Escape
    openFileMenuItem("Open dataset or model", QString());
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }, 60000));
    QVERIFY2(takeMessages().isEmpty(), qPrintable(window_->lastError()));
    for (const RunRow& r : window_->store()->listRuns()) {
      if (r.experiment_name != c.name) continue;
      expected_rows_[r.id] = window_->store()->run(r.id).summary.steps;
      known_runs_.insert(r.id);
      app_runs_.push_back(r.id);
    }
    actions_ += 3;
  }

  /// Open, compare, export (CSV, JSON, PNG, SVG, PDF, all plots, HTML report through its
  /// dialog), tag, note, delete, open a file and a folder, drop a CSV.
  void appActions(int round) {
    RunsPanel* runs = window_->runsPanel();
    ExportActions* exports = window_->exportActions();
    runs->refresh();
    const std::vector<int64_t> ids(app_runs_.end() - std::min<size_t>(2, app_runs_.size()),
                                   app_runs_.end());
    emit runs->openRequested({ids.front()});
    emit runs->compareRequested(ids);
    runs->selectRuns(ids);
    const QString tag = QString("r%1").arg(round);
    QVERIFY(exports->exportRunsTo(ids, ExportFormat::kCsv, dir_.filePath(tag + ".csv")));
    QVERIFY(exports->exportRunsTo(ids, ExportFormat::kJson, dir_.filePath(tag + ".json")));
    MetricCanvas* canvas = window_->plots()->canvases().front();
    for (const char* format : {"png", "svg", "pdf"}) {
      QVERIFY(exports->exportPlotTo(canvas, dir_.filePath(tag + "." + format)));
    }
    QDir().mkpath(dir_.filePath(tag + "-plots"));
    QVERIFY(exports->exportAllPlotsTo(dir_.filePath(tag + "-plots"), "png"));
    answerDialog(exports->reportAction(), dir_.filePath(tag + ".html"));
    QVERIFY2(QFile::exists(dir_.filePath(tag + ".html")), qPrintable(window_->lastError()));
    QVERIFY(runs->setTags(ids.back(), {tag, "torture"}));
    QVERIFY(runs->setNote(ids.back(), "round " + tag));
    if (app_runs_.size() > 4) {  // the oldest of the app's runs goes
      const int64_t gone = app_runs_.front();
      app_runs_.erase(app_runs_.begin());
      QVERIFY(runs->deleteRuns({gone}));
      forget(gone);
    }
    openFileMenuItem("Open dataset or model", dir_.filePath("data.csv"));
    QVERIFY2(takeMessages().isEmpty(), qPrintable(window_->lastError()));
    // The store's folder is no dataset folder: the app says so, in a dialog.
    openFileMenuItem("Open dataset folder", dir_.path());
    const QStringList said = takeMessages();
    QVERIFY2(said.size() == 1 && said.front().contains("holds neither IDX files"),
             qPrintable(said.join('\n')));
    dropFile(dir_.filePath("data.csv"));
    QVERIFY2(takeMessages().isEmpty(), qPrintable(window_->lastError()));
    actions_ += 17;
  }

  void appLesson(int round) {
    const QString lesson = dir_.filePath(QString("lesson-%1.json").arg(round));
    QFile f(lesson);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"title": "Torture", "text": "Two short runs.",
      "config": {"data": "spirals", "micro_batch": 8, "accum": 4, "arms": ["accum", "big-batch"],
                 "samples": 800, "probe_repeats": 0, "threads": 1},
      "runs": [{"id": "a"}, {"id": "b", "config": {"accum": 2}}],
      "checks": [{"id": "c", "name": "n", "measure": {"metric": "steps", "run": "a"},
                  "compare": "at_least", "theory": 1, "holds": "h", "fails": "f"}]})");
    f.close();
    LessonPanel* lessons = window_->lessonPanel();
    QVERIFY(window_->openLesson(lesson));
    QSignalSpy done(lessons, &LessonPanel::lessonFinished);
    QVERIFY2(lessons->startLesson(), qPrintable(window_->lastError()));
    QVERIFY(test::waitUntil([&] { return done.count() == 1; }, 90000));
    for (int64_t id : lessons->runIds()) {
      expected_rows_[id] = window_->store()->run(id).summary.steps;
      known_runs_.insert(id);
    }
    QVERIFY(lessons->saveReport(dir_.filePath(QString("lesson-%1.html").arg(round))));
    actions_ += 2;
  }

  void appSweep() {
    ExperimentConfig c = test::smallExperiment(600);
    c.name = "sweep";
    window_->experimentPanel()->setConfig(c);
    SweepPanel* sweeps = window_->sweepPanel();
    sweeps->findChild<QLineEdit*>("sweepBatches")->setText("16, 32");
    sweeps->findChild<QLineEdit*>("sweepMicroBatch")->setText("8");
    QVERIFY2(sweeps->startSweep(), qPrintable(window_->lastError()));
    QVERIFY(test::waitUntil([&] { return !sweeps->isRunning(); }, 90000));
    QVERIFY2(takeMessages().isEmpty(), qPrintable(window_->lastError()));
    QVERIFY(sweeps->saveReport(dir_.filePath(QString("sweep-%1.html").arg(sweeps->shownSweep()))));
    actions_ += 2;
  }

  /// Triggers `action`, whose handler opens a file dialog, and answers it.
  void answerDialog(QAction* action, const QString& choice) {
    test::DialogAnswer answer(dir_.path(), choice);
    action->trigger();  // returns once the dialog is answered
    QVERIFY2(answer.answered(), qPrintable("no file dialog for " + action->text()));
  }

  void openFileMenuItem(const QString& text, const QString& choice) {
    for (QAction* action : window_->findChildren<QAction*>()) {
      if (action->text().remove('&').startsWith(text)) return answerDialog(action, choice);
    }
    QFAIL(qPrintable("no menu item " + text));
  }

  void dropFile(const QString& path) {
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(path)});
    const QPointF at(window_->width() / 2.0, window_->height() / 2.0);
    QDragEnterEvent enter(at.toPoint(), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &enter);
    QDropEvent drop(at, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &drop);
  }

  /// The texts of the app's open message boxes (its error dialogs), which are then closed.
  QStringList takeMessages() {
    QStringList texts;
    for (QMessageBox* box : window_->findChildren<QMessageBox*>()) {
      if (!box->isVisible()) continue;
      texts << box->text();
      box->close();
    }
    return texts;
  }

  void forget(int64_t id) {
    expected_rows_.erase(id);
    known_runs_.erase(id);
  }

  /// What another process reads: integrity and each run's step rows.
  void checkStore(int round) {
    const QString script = R"PY(
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1], timeout=30)
integrity = [r[0] for r in con.execute("PRAGMA integrity_check")]
rows = dict(con.execute("SELECT run_id, count(*) FROM step_metrics GROUP BY run_id"))
runs = [r[0] for r in con.execute("SELECT id FROM runs")]
con.close()
print(json.dumps({"integrity": integrity, "rows": {str(k): v for k, v in rows.items()}, "runs": runs}))
)PY";
    QProcess check;
    check.setProcessEnvironment(childEnvironment());
    check.start("/usr/bin/python3", {"-c", script, db_});
    QVERIFY(check.waitForFinished(60000));
    const QByteArray out = check.readAllStandardOutput();
    QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());
    const QJsonObject result = QJsonDocument::fromJson(out).object();
    const QJsonArray integrity = result["integrity"].toArray();
    QVERIFY2(
        integrity.size() == 1 && integrity[0].toString() == "ok",
        qPrintable(QString("round %1: integrity_check: %2").arg(round + 1).arg(out.constData())));
    std::set<int64_t> present;
    for (const auto& id : result["runs"].toArray()) present.insert(id.toInteger());
    const QJsonObject rows = result["rows"].toObject();
    for (const auto& [id, steps] : expected_rows_) {
      QVERIFY2(
          present.count(id),
          qPrintable(QString("round %1: run %2 was stored and is gone").arg(round + 1).arg(id)));
      const int64_t stored = rows[QString::number(id)].toInteger();
      QVERIFY2(stored == steps && steps > 0,
               qPrintable(QString("round %1: run %2 has %3 step rows of %4")
                              .arg(round + 1)
                              .arg(id)
                              .arg(stored)
                              .arg(steps)));
    }
    const QStringList deleted = deletedStoreFiles();
    QVERIFY2(
        deleted.isEmpty(),
        qPrintable(QString("round %1: the app holds %2").arg(round + 1).arg(deleted.join(", "))));
    QFile log(guard_log_);
    if (!guard_log_.isEmpty() && log.open(QIODevice::ReadOnly)) {
      const QByteArray opened = log.readAll();
      QVERIFY2(opened.isEmpty(), qPrintable(QString("round %1: the store's files were opened "
                                                    "outside SQLite:\n%2")
                                                .arg(round + 1)
                                                .arg(opened.constData())));
    }
  }

  /// The store files among this process's descriptors whose file was unlinked.
  QStringList deletedStoreFiles() const {
    QStringList out;
    const QDir fds("/proc/self/fd");
    for (const QString& fd : fds.entryList(QDir::NoDotAndDotDot | QDir::System | QDir::Files)) {
      const QString target = QFile::symLinkTarget(fds.filePath(fd));
      if (target.contains(kStoreName) && target.endsWith("(deleted)")) out << target;
    }
    return out;
  }

  QTemporaryDir dir_;
  QString cli_, db_, guard_log_;
  std::unique_ptr<MainWindow> window_;
  std::map<int64_t, int64_t> expected_rows_;  ///< run id → step rows it must have
  std::set<int64_t> known_runs_;
  std::vector<int64_t> app_runs_, cli_runs_;
  int actions_ = 0, commands_ = 0;
};

QTEST_MAIN(StoreTortureTest)
#include "store_torture_test.moc"
