// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/main_window.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>
#include <exception>

#include "accumlab/config_overrides.h"
#include "accumlab/run_store.h"
#include "accumlab/store_merger.h"
#include "controller/training_controller.h"
#include "experiment/experiment_panel.h"
#include "experiment/source_catalog.h"
#include "files/experiment_file.h"
#include "files/file_dialogs.h"
#include "files/model_save_action.h"
#include "lessons/lesson_panel.h"
#include "plots/plot_grid.h"
#include "runs/run_loader.h"
#include "runs/runs_panel.h"
#include "series/live_run.h"
#include "series/shown_runs.h"
#include "sweep/sweep_panel.h"
#include "widgets/wheel_guard.h"
#include "window/audit_import.h"
#include "window/export_actions.h"
#include "window/live_session.h"
#include "window/main_menus.h"
#include "window/presentation_mode.h"
#include "window/run_actions.h"
#include "window/run_database.h"
#include "window/run_status_bar.h"

namespace accumlab::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("AccumLab"));
  setObjectName("mainWindow");
  setAcceptDrops(true);
  controller_ = new TrainingController(this);
  database_ = std::make_unique<RunDatabase>(controller_);
  shown_ = new ShownRuns(this);
  plots_ = new PlotGrid(shown_, this);
  experiment_ = new ExperimentPanel;
  sweeps_ = new SweepPanel([this] { return experiment_->config(); });
  lessons_ = new LessonPanel(controller_);
  // Live training in front; the Sweeps tab shows the trade-off across many runs; the Lessons
  // tab runs guided experiments through the same controller (the Live tab shows them).
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("centralTabs");
  tabs_->setDocumentMode(true);
  tabs_->addTab(plots_, tr("Live"));
  tabs_->addTab(sweeps_, tr("Sweeps"));
  tabs_->addTab(lessons_, tr("Lessons"));
  setCentralWidget(tabs_);
  runs_ = new RunsPanel;
  status_ = new RunStatusBar(this);
  setStatusBar(status_);
  export_ = new ExportActions(this, plots_, shown_, runs_, [this] { return store(); });
  actions_ = new RunActions(
      this, controller_, [this] { startRun(); }, [this] { stopRunning(); });
  experiment_->setRunActions(actions_->run(), actions_->pause(), actions_->stop());
  presentation_ = new PresentationMode(this, plots_);
  buildDocks();
  auto* save_model = new ModelSaveAction(
      this, [this] { return runs_->selectedRunIds(); }, [this] { return store(); });
  connect(save_model, &ModelSaveAction::errorOccurred, this, &MainWindow::showError);
  connect(save_model, &ModelSaveAction::saved, this,
          [this](const QString& path) { status_->showMessage(tr("Saved %1").arg(path), 5000); });
  menus_ = new MainMenus(
      {this, &settings_, actions_, export_, plots_, presentation_,
       [this](const QString& path) { openPath(path); },
       [this](const QString& path) { openLesson(path); }, [this] { chooseDatabase(); },
       [this] {
         if (tabs_->currentWidget() == sweeps_) return QStringLiteral("sweeps.md");
         if (tabs_->currentWidget() == lessons_) return QStringLiteral("lessons.md");
         return QStringLiteral("app.md");
       },
       [this](const QString& path) {
         if (!store()) {
           showError(
               tr("The app stores nothing now: choose a run database "
                  "(File → Run database…) to import an audit into."));
           return;
         }
         try {
           const ImportedAudit a = importAudit(path, database_->path());
           runs_->refresh();
           openRuns(a.run_ids, true);
           showVerdictCard(this, a.verdict);
         } catch (const std::exception& e) {
           showError(QString::fromStdString(e.what()));
         }
       },
       [this](const QString& path) { mergeStore(path); }, [this] { openExperiment(); },
       [this] {
         try {
           const QString path = experiment_file::save(this, experiment_->config());
           if (!path.isEmpty()) status_->showMessage(tr("Saved %1").arg(path), 5000);
         } catch (const std::exception& e) {
           showError(QString::fromStdString(e.what()));
         }
       },
       [this] { experiment_->setConfig(defaultExperiment()); }, save_model->action()});
  live_session_ =
      new LiveSession({controller_, new LiveRun(this), shown_, plots_, status_, experiment_, runs_,
                       [this](const QString& message) { showError(message); },
                       [this](int64_t run_id) { return loadExperiments(*store(), {run_id}); }},
                      this);

  connect(controller_, &TrainingController::startFailed, this, &MainWindow::showError);
  // While training, the plots take the Experiment panel's room on a narrow screen (a
  // projector's 1024 px left them 60% of it); F9 brings it back, the run's end restores it.
  connect(controller_, &TrainingController::started, this, [this] {
    if (width() >= kDockStaysFrom || experiment_dock_->isHidden() ||
        experiment_dock_->isFloating()) {
      return;
    }
    // The Runs panel shares its side (tabbed): both make room.
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
      if (dock->isHidden() || dock->isFloating() || dockWidgetArea(dock) != Qt::LeftDockWidgetArea)
        continue;
      dock->hide();
      hidden_for_run_ << dock;
    }
    dock_hidden_for_run_ = true;
    status_->showMessage(tr("The Experiment panel makes room for the plots while training: F9 "
                            "shows it"),
                         6000);
  });
  connect(controller_, &TrainingController::finished, this, [this] {
    for (QDockWidget* dock : hidden_for_run_) dock->show();
    if (dock_hidden_for_run_) experiment_dock_->raise();
    hidden_for_run_.clear();
    dock_hidden_for_run_ = false;
  });
  connect(presentation_, &PresentationMode::chosenPlotsChanged, this,
          [this] { settings_.savePresentationPlots(presentation_->chosenPlots()); });
  connect(experiment_, &ExperimentPanel::openFailed, this, &MainWindow::showError);
  connect(experiment_, &ExperimentPanel::pathOpened, this, [this](const QString& path) {
    settings_.addRecentFile(path);
    menus_->updateRecent();
  });
  auto status_message = [this](const QString& text) { status_->showMessage(text, 8000); };
  connect(sweeps_, &SweepPanel::errorOccurred, this, &MainWindow::showError);
  connect(sweeps_, &SweepPanel::statusChanged, this, status_message);
  connect(lessons_, &LessonPanel::errorOccurred, this, &MainWindow::showError);
  connect(lessons_, &LessonPanel::statusChanged, this, status_message);
  connect(lessons_, &LessonPanel::runningChanged, experiment_, &ExperimentPanel::setLessonRunning);
  connect(lessons_, &LessonPanel::lessonRunStarted, this,
          [this] { tabs_->setCurrentWidget(plots_); });
  connect(lessons_, &LessonPanel::lessonFinished, this, [this] {
    tabs_->setCurrentWidget(lessons_);
    runs_->refresh();
  });
  connect(lessons_, &LessonPanel::showRunsRequested, this, [this](const std::vector<int64_t>& ids) {
    openRuns(ids, false);
    tabs_->setCurrentWidget(plots_);
  });
  connect(lessons_, &LessonPanel::showSweepRequested, this, [this](int64_t id) {
    sweeps_->refresh();
    sweeps_->showSweep(id);
    tabs_->setCurrentWidget(sweeps_);
  });
  connect(runs_, &RunsPanel::errorOccurred, this, &MainWindow::showError);
  connect(runs_, &RunsPanel::openRequested, this,
          [this](const std::vector<int64_t>& ids) { openRuns(ids, true); });
  connect(runs_, &RunsPanel::compareRequested, this, &MainWindow::compareRuns);
  connect(runs_, &RunsPanel::resumeRequested, this, &MainWindow::resumeRun);
  connect(runs_, &RunsPanel::exportRequested, this, [this](const std::vector<int64_t>& ids) {
    export_->exportRuns(ids, ExportFormat::kCsv);
  });
  connect(export_, &ExportActions::errorOccurred, this, &MainWindow::showError);
  connect(export_, &ExportActions::exported, this,
          [this](const QString& path) { status_->showMessage(tr("Saved %1").arg(path), 5000); });
  connect(plots_, &PlotGrid::viewOptionsChanged, this, [this] {
    settings_.saveView(static_cast<int>(plots_->xAxisMode()), plots_->smoothing(), plots_->logY());
  });
  WheelGuard::protect(this);  // scrolling a panel changes none of its boxes
}

MainWindow::~MainWindow() = default;

RunStore* MainWindow::store() const { return database_->store(); }

void MainWindow::buildDocks() {
  auto* scroll = new QScrollArea;
  scroll->setWidget(experiment_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(experiment_->sizeHint().width() + 20);
  auto* exp_dock = new QDockWidget(tr("Experiment"), this);
  exp_dock->setObjectName("experimentDock");
  exp_dock->toggleViewAction()->setShortcut(QKeySequence(Qt::Key_F9));
  experiment_dock_ = exp_dock;
  exp_dock->setWidget(scroll);
  addDockWidget(Qt::LeftDockWidgetArea, exp_dock);
  auto* runs_dock = new QDockWidget(tr("Runs"), this);
  runs_dock->setObjectName("runsDock");
  runs_dock->setWidget(runs_);
  addDockWidget(Qt::LeftDockWidgetArea, runs_dock);
  tabifyDockWidget(exp_dock, runs_dock);
  exp_dock->raise();
}

void MainWindow::openPath(const QString& path) {
  QString error;
  if (!experiment_->openPath(path, &error)) showError(error);
}

bool MainWindow::applyOptions(const AppOptions& options) {
  settings_.restoreWindow(this, plots_, presentation_, options.fresh);
  // The last experiment, unless the command line names a config file or a preset (checked
  // by parseAppOptions); a file that cannot be read is reported and left out.
  ExperimentConfig config = defaultExperiment();
  if (!options.fresh) {
    if (auto last = settings_.lastExperiment()) config = *last;
  }
  bool ok = true;
  try {
    config = startingConfig(options.experiment, config);
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    ok = false;
    ConfigOverrides without_file = options.experiment;
    without_file.config_file.clear();
    config = startingConfig(without_file, config);
  }
  applyOverrides(options.experiment, &config);
  experiment_->setConfig(config);

  QString db = options.db;
  if (db.isEmpty()) db = settings_.databasePath();
  if (db.isEmpty()) db = QString::fromStdString(RunStore::defaultPath());
  openDatabase(options.no_store ? QString() : db);
  if (options.presentation) presentation_->setActive(true);

  if (!options.lesson.isEmpty()) {
    ok = openLesson(options.lesson) && ok;
    if (!options.predict.isEmpty()) lessons_->setPrediction(options.predict);
    if (options.run && ok) QTimer::singleShot(0, lessons_, [this] { lessons_->startLesson(); });
  } else if (options.run && ok) {
    QTimer::singleShot(0, this, &MainWindow::startRun);
  } else if (!options.open.empty()) {
    compareRuns(options.open);
  }
  if (!options.screenshot.isEmpty()) {
    scheduleScreenshot(options.screenshot, options.quit_after > 0 ? options.quit_after : 5.0, true);
  } else if (options.quit_after > 0) {
    QTimer::singleShot(static_cast<int>(options.quit_after * 1000), this,
                       &MainWindow::closeWithoutAsking);
  }
  return ok;
}

bool MainWindow::openDatabase(const QString& path) {
  bool ok = true;
  try {
    database_->open(path);
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    ok = false;
  }
  const QString& open = database_->path();
  runs_->setStore(store());
  sweeps_->setStore(store(), open);
  lessons_->setStore(store(), [db = database_.get()] { return db->storedRuns(); });
  experiment_->setStorePath(open);
  status_->setDatabase(open);
  return ok;
}

void MainWindow::chooseDatabase() {
  const QString path = file_dialogs::saveFile(this, tr("Run database"), database_->path(),
                                              tr("SQLite databases (*.sqlite *.db);;All files (*)"),
                                              QFileDialog::DontConfirmOverwrite);
  if (!path.isEmpty() && openDatabase(path)) settings_.saveDatabasePath(path);
}

void MainWindow::mergeStore(const QString& path) {
  if (!store()) {
    showError(
        tr("The app stores nothing now: choose a run database (File → Run database…) to "
           "merge into."));
    return;
  }
  try {
    // On the GUI thread, as the store is: a merge of a few stores takes a moment.
    const MergedStore merged = StoreMerger(*store()).merge({path.toStdString()}).front();
    runs_->refresh();
    status_->showMessage(tr("Merged %1 runs from %2 (%3 already here)")
                             .arg(merged.runs_added)
                             .arg(path)
                             .arg(merged.runs_skipped),
                         8000);
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
  }
}

void MainWindow::openExperiment() {
  try {
    if (const auto config = experiment_file::open(this)) {
      experiment_->setConfig(*config);
      settings_.saveExperiment(*config);
    }
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
  }
}

void MainWindow::startRun() {
  if (controller_->isRunning()) return;
  const ExperimentConfig config = experiment_->config();
  try {
    experiment_->checkMemoryBudget();
    validateConfig(config);
    const QString& db = database_->path();
    if (!db.isEmpty()) RunStore::refuseReadingStore(config, db.toStdString());
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    return;
  }
  settings_.saveExperiment(config);
  controller_->start(config);
}

void MainWindow::stopRunning() {
  // Stop ends a lesson as a whole, not only its current run.
  lessons_->isRunning() ? lessons_->stopLesson() : controller_->stop();
}

void MainWindow::openRuns(const std::vector<int64_t>& ids, bool whole_experiments) {
  if (ids.empty() || !store()) return;
  if (controller_->isRunning()) {
    showError(tr("Stop the running experiment before opening stored runs."));
    return;
  }
  try {
    shown_->showStored(whole_experiments ? loadExperiments(*store(), ids)
                                         : loadRuns(*store(), ids));
    status_->setState(whole_experiments ? tr("Stored run") : tr("Comparing"));
    status_->clearProgress();
    tabs_->setCurrentWidget(plots_);  // what was opened is drawn there
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
  }
}

void MainWindow::resumeRun(int64_t run_id) {
  if (!store()) return;
  if (controller_->isRunning()) {
    showError(tr("Stop the running experiment before resuming another."));
    return;
  }
  try {
    const ResumableRun run = database_->resumable(run_id);
    experiment_->setConfig(run.config);
    live_session_->continueRun(run_id);
    if (!controller_->resume(run.config, run.experiment_id)) live_session_->continueRun(0);
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
  }
}

bool MainWindow::openLesson(const QString& which) {
  if (!lessons_->openLesson(which)) return false;
  tabs_->setCurrentWidget(lessons_);
  return true;
}

void MainWindow::showError(const QString& message) {
  last_error_ = message;
  std::fprintf(stderr, "accumlab: %s\n", message.toLocal8Bit().constData());
  auto* box = new QMessageBox(QMessageBox::Warning, tr("AccumLab"), message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // not exec(): the window and training keep running behind it
}

void MainWindow::scheduleScreenshot(const QString& path, double seconds, bool quit) {
  QTimer::singleShot(static_cast<int>(seconds * 1000), this, [this, path, quit] {
    plots_->replotNow();
    if (!grab().save(path))
      std::fprintf(stderr, "accumlab: could not write %s\n", qPrintable(path));
    if (quit) closeWithoutAsking();
  });
}

void MainWindow::closeWithoutAsking() {
  quit_unattended_ = true;
  close();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (controller_->isRunning() && !quit_unattended_) {
    const auto answer = QMessageBox::question(
        this, tr("Quit AccumLab"),
        tr("A run is training. Quit and stop it?<p>What it has trained so far is kept in the "
           "run database as a stopped run; Resume in the Runs panel goes on from its last "
           "checkpoint.</p>"),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
  }
  presentation_->setActive(false);  // the saved geometry is the normal window's
  settings_.saveWindow(this, experiment_->config());
  controller_->stop();  // the controller's destructor waits for the training thread
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) openPath(url.toLocalFile());
  }
  event->acceptProposedAction();
}

}  // namespace accumlab::ui
