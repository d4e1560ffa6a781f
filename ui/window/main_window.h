// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMainWindow>
#include <memory>

#include "accumlab/experiment_config.h"
#include "window/app_options.h"
#include "window/app_settings.h"

class QTabWidget;

namespace accumlab {
class RunStore;
}

class QDockWidget;

namespace accumlab::ui {

class ExperimentPanel;
class ExportActions;
class LessonPanel;
class LiveSession;
class MainMenus;
class PlotGrid;
class PresentationMode;
class RunActions;
class RunDatabase;
class RunStatusBar;
class RunsPanel;
class ShownRuns;
class SweepPanel;
class TrainingController;

/// The desktop app's window. It only assembles the panels (experiment dock, plot grid,
/// runs dock, status bar, menus) and wires them to the TrainingController and the run
/// store; each panel does its own work. GUI thread.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Applies the command line: experiment overrides, database, --run, screenshot, quit timer.
  /// Returns false (after showing why) when the config file cannot be read.
  bool applyOptions(const AppOptions& options);
  /// Opens (or creates) the run database; an empty path stores nothing. False on failure,
  /// after reporting it; the app keeps running without a database.
  bool openDatabase(const QString& path);
  /// Starts training the experiment shown in the panel.
  void startRun();
  /// Saves a PNG of the window after `seconds`; quits afterwards when `quit` is set.
  void scheduleScreenshot(const QString& path, double seconds, bool quit);

  TrainingController* controller() const { return controller_; }
  ExperimentPanel* experimentPanel() const { return experiment_; }
  PlotGrid* plots() const { return plots_; }
  /// The runs the plots show, that export and the report read.
  ShownRuns* shownRuns() const { return shown_; }
  RunsPanel* runsPanel() const { return runs_; }
  SweepPanel* sweepPanel() const { return sweeps_; }
  LessonPanel* lessonPanel() const { return lessons_; }
  /// Shows the Lessons tab on a lesson: its number in the list, its id, or a lesson file.
  /// False (after showing why) when there is no such lesson.
  bool openLesson(const QString& which);
  ExportActions* exportActions() const { return export_; }
  RunStatusBar* runStatusBar() const { return status_; }
  RunStore* store() const;
  PresentationMode* presentationMode() const { return presentation_; }
  /// The last error shown to the user (for tests).
  QString lastError() const { return last_error_; }

 public slots:
  /// Closes as Quit does, without asking about a run that trains: for a signal, --quit-after
  /// and --screenshot, where nobody is there to answer.
  void closeWithoutAsking();
  /// Shows `message` in a non-blocking dialog; the app keeps running.
  void showError(const QString& message);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildDocks();
  void openPath(const QString& path);
  void chooseDatabase();
  /// File → Merge a run store…: copies the runs of the store at `path` into this one.
  void mergeStore(const QString& path);
  /// File → Open experiment…: the form shows the experiment of a JSON file.
  void openExperiment();
  void stopRunning();
  void openRuns(const std::vector<int64_t>& ids, bool whole_experiments);
  /// One id shows its whole experiment; several are overlaid run by run.
  void compareRuns(const std::vector<int64_t>& ids) { openRuns(ids, ids.size() == 1); }
  /// Continues an interrupted run's experiment from its checkpoint.
  void resumeRun(int64_t run_id);

  AppSettings settings_;
  TrainingController* controller_;
  std::unique_ptr<RunDatabase> database_;
  ExperimentPanel* experiment_;
  ShownRuns* shown_;
  PlotGrid* plots_;
  RunsPanel* runs_;
  SweepPanel* sweeps_;
  LessonPanel* lessons_;
  QTabWidget* tabs_;
  RunStatusBar* status_;
  ExportActions* export_;
  RunActions* actions_;
  PresentationMode* presentation_;
  MainMenus* menus_;
  LiveSession* live_session_;
  QString last_error_;
  /// Closing without asking, as --quit-after and --screenshot do: nobody is there to answer.
  bool quit_unattended_ = false;
  /// Below this window width the Experiment panel hides while a run trains.
  static constexpr int kDockStaysFrom = 1600;
  QDockWidget* experiment_dock_ = nullptr;
  bool dock_hidden_for_run_ = false;    ///< hidden by the run's start, shown at its end
  QList<QDockWidget*> hidden_for_run_;  ///< the docks the run's start hid
};

}  // namespace accumlab::ui
