#include "window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <cstdio>
#include <exception>

#include "accumlab/checkpoint_path.h"
#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "controller/training_controller.h"
#include "experiment/experiment_panel.h"
#include "experiment/source_catalog.h"
#include "plots/live_plots.h"
#include "plots/metric_canvas.h"
#include "runs/run_loader.h"
#include "runs/runs_panel.h"
#include "window/plot_help.h"
#include "window/run_keys.h"
#include "lessons/lesson_panel.h"
#include "sweep/sweep_panel.h"
#include "window/export_actions.h"
#include "window/run_status_bar.h"

namespace accumlab::ui {

namespace {
/// The drain period is this many times the cost of one update of the plots.
constexpr double kGuiShare = 10.0;
/// The plots update at least this often (ms) however slow the machine.
constexpr int kSlowestDrainMs = 250;
// Samples between the checkpoints of a stored run.
constexpr int64_t kCheckpointEvery = 10000;
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("AccumLab"));
  setObjectName("mainWindow");
  setAcceptDrops(true);
  controller_ = new TrainingController(this);
  plots_ = new LivePlots(this);
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
  export_ = new ExportActions(this, plots_, runs_, [this] { return store_.get(); });
  buildActions();
  buildDocks();
  buildMenus();

  connect(controller_, &TrainingController::started, this, &MainWindow::onStarted);
  connect(controller_, &TrainingController::batchReady, this, &MainWindow::onBatch);
  connect(controller_, &TrainingController::finished, this, &MainWindow::onFinished);
  connect(controller_, &TrainingController::startFailed, this, &MainWindow::showError);
  connect(controller_, &TrainingController::pausedChanged, this, [this](bool paused) {
    pause_action_->setChecked(paused);
    status_->setState(paused ? tr("Paused") : tr("Training"));
  });
  connect(experiment_, &ExperimentPanel::microBatchChanged, controller_,
          [this](qint64 m) { controller_->setMicroBatch(m); });
  connect(experiment_, &ExperimentPanel::accumChanged, controller_,
          [this](qint64 k) { controller_->setAccum(k); });
  connect(experiment_, &ExperimentPanel::openFailed, this, &MainWindow::showError);
  connect(sweeps_, &SweepPanel::errorOccurred, this, &MainWindow::showError);
  connect(sweeps_, &SweepPanel::statusChanged, this,
          [this](const QString& text) { status_->showMessage(text, 8000); });
  connect(lessons_, &LessonPanel::errorOccurred, this, &MainWindow::showError);
  connect(lessons_, &LessonPanel::statusChanged, this,
          [this](const QString& text) { status_->showMessage(text, 8000); });
  connect(lessons_, &LessonPanel::lessonRunStarted, this, [this] { tabs_->setCurrentWidget(plots_); });
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
  connect(experiment_, &ExperimentPanel::pathOpened, this, [this](const QString& path) {
    settings_.addRecentFile(path);
    updateRecentMenu();
  });
  connect(runs_, &RunsPanel::errorOccurred, this, &MainWindow::showError);
  connect(runs_, &RunsPanel::openRequested, this,
          [this](const std::vector<int64_t>& ids) { openRuns(ids, true); });
  connect(runs_, &RunsPanel::compareRequested, this,
          [this](const std::vector<int64_t>& ids) { openRuns(ids, ids.size() == 1); });
  connect(runs_, &RunsPanel::resumeRequested, this, &MainWindow::resumeRun);
  connect(runs_, &RunsPanel::exportRequested, this,
          [this](const std::vector<int64_t>& ids) { export_->exportRuns(ids, ExportFormat::kCsv); });
  connect(export_, &ExportActions::errorOccurred, this, &MainWindow::showError);
  connect(export_, &ExportActions::exported, this,
          [this](const QString& path) { status_->showMessage(tr("Saved %1").arg(path), 5000); });
  connect(plots_, &LivePlots::viewOptionsChanged, this, [this] {
    settings_.saveView(static_cast<int>(plots_->xAxisMode()), plots_->smoothing(), plots_->logY());
  });
  updateRunActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
  QStyle* s = style();
  run_action_ = new QAction(s->standardIcon(QStyle::SP_MediaPlay), tr("&Run"), this);
  run_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  run_action_->setToolTip(tr("Train the experiment (Ctrl+R)"));
  pause_action_ = new QAction(s->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), this);
  pause_action_->setShortcut(QKeySequence(Qt::Key_Space));
  pause_action_->setCheckable(true);
  pause_action_->setToolTip(tr("Pause or resume at the next window boundary (Space)"));
  stop_action_ = new QAction(s->standardIcon(QStyle::SP_MediaStop), tr("&Stop"), this);
  stop_action_->setShortcut(QKeySequence(Qt::Key_Escape));
  stop_action_->setToolTip(tr("Stop every arm at the next window boundary (Esc)"));
  connect(run_action_, &QAction::triggered, this, &MainWindow::startRun);
  connect(pause_action_, &QAction::toggled, this, [this](bool on) {
    if (on) {
      controller_->pause();
    } else {
      controller_->resume();
    }
  });
  // Stop ends a lesson as a whole, not only its current run.
  connect(stop_action_, &QAction::triggered, this, [this] {
    if (lessons_->isRunning()) {
      lessons_->stopLesson();
    } else {
      controller_->stop();
    }
  });
  experiment_->setRunActions(run_action_, pause_action_, stop_action_);
  new RunKeys(this, pause_action_, stop_action_);  // Space and Esc wherever the focus is

  QToolBar* bar = addToolBar(tr("Training"));
  bar->setObjectName("trainingToolBar");
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->addAction(run_action_);
  bar->addAction(pause_action_);
  bar->addAction(stop_action_);
  bar->addSeparator();
  export_menu_ = new QMenu(tr("&Export"), this);
  export_->populateMenu(export_menu_);
  auto* export_button = new QToolButton(bar);
  export_button->setText(tr("Export"));
  export_button->setIcon(s->standardIcon(QStyle::SP_DialogSaveButton));
  export_button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  export_button->setToolTip(tr("Export runs (CSV, JSON), plots (PNG, SVG, PDF) or a report"));
  export_button->setMenu(export_menu_);
  export_button->setPopupMode(QToolButton::InstantPopup);
  bar->addWidget(export_button);
  bar->addAction(export_->reportAction());
}

void MainWindow::buildDocks() {
  auto* scroll = new QScrollArea;
  scroll->setWidget(experiment_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(experiment_->sizeHint().width() + 20);
  auto* exp_dock = new QDockWidget(tr("Experiment"), this);
  exp_dock->setObjectName("experimentDock");
  exp_dock->setWidget(scroll);
  addDockWidget(Qt::LeftDockWidgetArea, exp_dock);
  auto* runs_dock = new QDockWidget(tr("Runs"), this);
  runs_dock->setObjectName("runsDock");
  runs_dock->setWidget(runs_);
  addDockWidget(Qt::LeftDockWidgetArea, runs_dock);
  tabifyDockWidget(exp_dock, runs_dock);
  exp_dock->raise();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open dataset or model…"), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a dataset or model"), QString(),
        tr("Datasets and models (*.csv *.tsv *.txt *-ubyte *-ubyte.gz *.pt *.pth);;All files (*)"));
    if (!path.isEmpty()) openPath(path);
  });
  file->addAction(tr("Open dataset &folder…"), this, [this] {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open an IDX or CIFAR-10 folder"));
    if (!path.isEmpty()) openPath(path);
  });
  file->addAction(tr("Open &lesson…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a lesson"),
                                                      QString::fromStdString(lessonDirectory()),
                                                      tr("Lessons (*.json);;All files (*)"));
    if (!path.isEmpty() && lessons_->openLessonFile(path)) tabs_->setCurrentWidget(lessons_);
  });
  recent_menu_ = file->addMenu(tr("Open &recent"));
  updateRecentMenu();
  file->addSeparator();
  file->addAction(tr("Run &database…"), this, &MainWindow::chooseDatabase);
  file->addSeparator();
  file->addMenu(export_menu_);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(run_action_);
  run->addAction(pause_action_);
  run->addAction(stop_action_);

  view_menu_ = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view_menu_->addAction(dock->toggleViewAction());
  view_menu_->addSeparator();
  view_menu_->addAction(tr("&Reset plot view"), QKeySequence(Qt::CTRL | Qt::Key_0), plots_,
                        &LivePlots::resetView);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("What the &plots show"), this, [this] { showPlotHelp(this, plots_->canvases()); });
  help->addAction(tr("&About AccumLab"), this, [this] {
    QMessageBox::about(this, tr("About AccumLab"),
                       tr("<b>AccumLab %1</b><p>A lab for gradient accumulation: train with "
                          "micro-batches of m, add up K of them per update, and watch the update "
                          "noise fall by K while the accumulated arm tracks the big batch.</p>")
                           .arg(QApplication::applicationVersion()));
  });

  // Right-click on a plot exports it.
  for (MetricCanvas* canvas : plots_->canvases()) {
    auto* a = new QAction(tr("Export this plot…"), canvas);
    connect(a, &QAction::triggered, this, [this, canvas] { export_->exportPlot(canvas); });
    canvas->addAction(a);
    canvas->setContextMenuPolicy(Qt::ActionsContextMenu);
  }
}

void MainWindow::updateRecentMenu() {
  recent_menu_->clear();
  const QStringList files = settings_.recentFiles();
  for (const QString& path : files) {
    recent_menu_->addAction(path, this, [this, path] { openPath(path); });
  }
  recent_menu_->setEnabled(!files.isEmpty());
}

void MainWindow::openPath(const QString& path) {
  QString error;
  if (!experiment_->openPath(path, &error)) showError(error);
}

bool MainWindow::applyOptions(const AppOptions& options) {
  restoreSettings(options.fresh);
  ExperimentConfig config = defaultExperiment();
  if (!options.fresh) {
    if (auto last = settings_.lastExperiment()) config = *last;
  }
  bool ok = true;
  if (!options.config_file.isEmpty()) {
    try {
      config = loadConfigFile(options.config_file.toStdString());
    } catch (const std::exception& e) {
      showError(QString::fromStdString(e.what()));
      ok = false;
    }
  }
  if (!options.data.isEmpty()) config.data = options.data.toStdString();
  if (!options.model.isEmpty()) config.model = options.model.toStdString();
  if (options.micro_batch > 0) config.micro_batch = options.micro_batch;
  if (options.accum > 0) config.accum = options.accum;
  if (options.samples > 0) {
    config.samples = options.samples;
    config.epochs = 0;
  }
  experiment_->setConfig(config);

  QString db = options.db;
  if (db.isEmpty()) db = settings_.databasePath();
  if (db.isEmpty()) db = QString::fromStdString(RunStore::defaultPath());
  openDatabase(options.no_store ? QString() : db);

  if (!options.lesson.isEmpty()) {
    ok = openLesson(options.lesson) && ok;
    if (!options.predict.isEmpty()) lessons_->setPrediction(options.predict);
    if (options.run && ok) QTimer::singleShot(0, lessons_, [this] { lessons_->startLesson(); });
  } else if (options.run && ok) {
    QTimer::singleShot(0, this, &MainWindow::startRun);
  }
  if (!options.screenshot.isEmpty()) {
    scheduleScreenshot(options.screenshot, options.quit_after > 0 ? options.quit_after : 5.0, true);
  } else if (options.quit_after > 0) {
    QTimer::singleShot(static_cast<int>(options.quit_after * 1000), this, &QWidget::close);
  }
  return ok;
}

bool MainWindow::openDatabase(const QString& path) {
  store_.reset();
  db_path_.clear();
  if (!path.isEmpty()) {
    try {
      store_ = std::make_unique<RunStore>(path.toStdString());
      db_path_ = path;
    } catch (const std::exception& e) {
      showError(QString::fromStdString(e.what()));
    }
  }
  runs_->setStore(store_.get());
  sweeps_->setStore(store_.get(), db_path_);
  lessons_->setStore(store_.get());
  experiment_->setStorePath(db_path_);
  status_->setDatabase(db_path_);
  if (db_path_.isEmpty()) {
    controller_->setSinkFactory(nullptr);
    controller_->setCheckpointing(0, nullptr);
  } else {
    const std::string file = db_path_.toStdString();
    controller_->setSinkFactory([this, file](const ExperimentConfig&) -> std::unique_ptr<MetricsSink> {
      auto sink = std::make_unique<StoreSink>(file);
      if (resume_experiment_ > 0) sink->resumeExperiment(resume_experiment_);
      resume_experiment_ = 0;
      store_sink_ = sink.get();
      return sink;
    });
    // Every run can be resumed after a crash (Runs tab → Resume). The path is asked on the
    // training thread at the first save, when the store sink has its ids.
    controller_->setCheckpointing(kCheckpointEvery, [this, file] {
      return store_sink_ ? checkpointPath(file, store_sink_->experimentId()) : std::string();
    });
  }
  return path.isEmpty() || store_ != nullptr;
}

void MainWindow::chooseDatabase() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Run database"), db_path_, tr("SQLite databases (*.sqlite *.db);;All files (*)"),
      nullptr, QFileDialog::DontConfirmOverwrite);
  if (path.isEmpty()) return;
  if (openDatabase(path)) settings_.saveDatabasePath(path);
}

void MainWindow::startRun() {
  if (controller_->isRunning()) return;
  const ExperimentConfig config = experiment_->config();
  try {
    experiment_->checkMemoryBudget();
    validateConfig(config);
    if (!db_path_.isEmpty()) RunStore::refuseReadingStore(config, db_path_.toStdString());
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    return;
  }
  settings_.saveExperiment(config);
  controller_->start(config);
}

void MainWindow::onStarted() {
  const ExperimentConfig& config = controller_->config();
  // A lesson's run is a preset experiment: the panel shows what actually trains.
  if (lessons_->isRunning()) experiment_->setConfig(config);
  // The plots are cleared when the run has loaded its data and model (its first batch): a
  // run that fails to start leaves the previous plots on screen.
  status_->resetProgress();
  status_->setState(tr("Loading data…"));
  experiment_->setRunning(true);
  updateRunActions();
}

void MainWindow::onBatch(const RecordBatch& batch) {
  QElapsedTimer handling;
  handling.start();
  if (batch.started) {
    const ExperimentConfig& config = controller_->config();
    plots_->beginLive(tr("live: %1 m=%2 K=%3")
                          .arg(QString::fromStdString(config.name.empty() ? config.data : config.name))
                          .arg(config.micro_batch)
                          .arg(config.accum));
  }
  plots_->appendLive(batch);
  if (batch.started) {
    status_->setDevice(QString::fromStdString(batch.started->device));
    status_->setState(controller_->isPaused() ? tr("Paused") : tr("Training"));
    runs_->refresh();  // the store sink created the rows before this batch was drained
  }
  for (const EventRecord& e : batch.events) {
    if (e.kind == "diverged" || e.kind == "failed" || e.kind == "micro_batch" || e.kind == "accum" ||
        e.kind == "model" || e.kind == "rejected" || e.kind == "out_of_memory") {
      const QString arm = e.arm.empty() ? QString() : QString::fromStdString(e.arm) + ": ";
      status_->showMessage(arm + QString::fromStdString(e.message), 8000);
    }
  }
  if (!plots_->runs().empty()) status_->showProgress(plots_->runs().front());
  // Feed the plots as often as the GUI thread can afford: 30 Hz while redraws are cheap,
  // less often on a slow or busy machine, so that plotting keeps ~1/kGuiShare of one core
  // and never slows training down.
  const double cost_ms = static_cast<double>(handling.nsecsElapsed()) / 1e6 + plots_->replotCostMs();
  controller_->setDrainInterval(std::min(kSlowestDrainMs, static_cast<int>(cost_ms * kGuiShare)));
}

void MainWindow::onFinished(const QString& error, bool input_error) {
  store_sink_ = nullptr;  // the next start makes another
  experiment_->setRunning(false);
  updateRunActions();
  bool stopped = false;
  if (!plots_->runs().empty()) {
    for (const ArmSeries& arm : plots_->runs().front().arms) {
      stopped = stopped || arm.summary.status == ArmStatus::kStopped;
    }
  }
  status_->setState(!error.isEmpty() ? tr("Failed") : stopped ? tr("Stopped") : tr("Finished"));
  runs_->refresh();
  if (!error.isEmpty()) {
    showError(input_error ? error : tr("Training stopped with an internal error: %1").arg(error));
  }
}

void MainWindow::updateRunActions() {
  const bool running = controller_->isRunning();
  run_action_->setEnabled(!running);
  pause_action_->setEnabled(running);
  stop_action_->setEnabled(running);
  if (!running) pause_action_->setChecked(false);
}

void MainWindow::openRuns(const std::vector<int64_t>& ids, bool whole_experiments) {
  if (ids.empty() || !store_) return;
  if (controller_->isRunning()) {
    showError(tr("Stop the running experiment before opening stored runs."));
    return;
  }
  try {
    plots_->showRuns(whole_experiments ? loadExperiments(*store_, ids) : loadRuns(*store_, ids));
    status_->setState(whole_experiments ? tr("Stored run") : tr("Comparing"));
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
  }
}

void MainWindow::resumeRun(int64_t run_id) {
  if (!store_) return;
  if (controller_->isRunning()) {
    showError(tr("Stop the running experiment before resuming another."));
    return;
  }
  try {
    store_->markInterruptedRuns();
    const RunDetail run = store_->run(run_id);
    if (run.row.status != ArmStatus::kInterrupted) {
      showError(tr("Run %1 is %2: only an interrupted run (its process died) can be resumed.")
                    .arg(run_id)
                    .arg(QString::fromStdString(toString(run.row.status))));
      return;
    }
    const std::string checkpoint = checkpointPath(db_path_.toStdString(), run.row.experiment_id);
    if (!QFileInfo::exists(QString::fromStdString(checkpoint))) {
      showError(tr("Run %1 cannot be resumed: it has no checkpoint (%2); it stopped before its "
                   "first one.")
                    .arg(run_id)
                    .arg(QString::fromStdString(checkpoint)));
      return;
    }
    experiment_->setConfig(run.config);
    resume_experiment_ = run.row.experiment_id;
    if (!controller_->resume(run.config, checkpoint)) resume_experiment_ = 0;
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
  }
}

bool MainWindow::openLesson(const QString& which) {
  try {
    const QString file = QString::fromStdString(findLessonFile(which.toStdString()));
    if (!lessons_->openLessonFile(file)) return false;
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    return false;
  }
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
    if (!grab().save(path)) std::fprintf(stderr, "accumlab: could not write %s\n", qPrintable(path));
    if (quit) close();
  });
}

void MainWindow::restoreSettings(bool fresh) {
  if (fresh) {
    resize(1500, 940);
    return;
  }
  if (!restoreGeometry(settings_.geometry())) resize(1500, 940);
  restoreState(settings_.windowState());
  plots_->setXAxisMode(static_cast<XAxisMode>(settings_.xAxisMode()));
  plots_->setSmoothing(settings_.smoothing());
  plots_->setLogY(settings_.logY());
}

void MainWindow::saveSettings() {
  settings_.saveLayout(saveGeometry(), saveState());
  settings_.saveExperiment(experiment_->config());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveSettings();
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
