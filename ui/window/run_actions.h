// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <functional>

class QAction;
class QMainWindow;
class QToolBar;

namespace accumlab::ui {

class TrainingController;

/// Run (Ctrl+R), Pause (Space) and Stop (Esc): the actions the toolbar, the Run menu and the
/// experiment panel share. They follow the controller (Pause and Stop only while a run
/// trains, Pause checked while paused), and Space and Esc work wherever the focus is.
/// GUI thread.
class RunActions : public QObject {
  Q_OBJECT

 public:
  /// `run` starts the experiment; `stop` stops what is running (a whole lesson, say).
  RunActions(QMainWindow* window, TrainingController* controller, std::function<void()> run,
             std::function<void()> stop);

  QAction* run() const { return run_; }
  QAction* pause() const { return pause_; }
  QAction* stop() const { return stop_; }
  /// Adds the three to `bar`.
  void addTo(QToolBar* bar) const;

 private:
  void update();

  TrainingController* controller_;
  QAction* run_;
  QAction* pause_;
  QAction* stop_;
};

}  // namespace accumlab::ui
