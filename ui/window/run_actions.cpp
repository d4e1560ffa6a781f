// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/run_actions.h"

#include <QAction>
#include <QMainWindow>
#include <QStyle>
#include <QToolBar>

#include "controller/training_controller.h"
#include "window/run_keys.h"

namespace accumlab::ui {

RunActions::RunActions(QMainWindow* window, TrainingController* controller,
                       std::function<void()> run, std::function<void()> stop)
    : QObject(window), controller_(controller) {
  QStyle* s = window->style();
  run_ = new QAction(s->standardIcon(QStyle::SP_MediaPlay), tr("&Run"), window);
  run_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  run_->setToolTip(tr("Train the experiment (Ctrl+R)"));
  pause_ = new QAction(s->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), window);
  pause_->setShortcut(QKeySequence(Qt::Key_Space));
  pause_->setCheckable(true);
  pause_->setObjectName("pauseAction");
  pause_->setToolTip(tr("Pause or resume at the next window boundary (Space)"));
  stop_ = new QAction(s->standardIcon(QStyle::SP_MediaStop), tr("&Stop"), window);
  stop_->setShortcut(QKeySequence(Qt::Key_Escape));
  stop_->setToolTip(tr("Stop every arm at the next window boundary (Esc)"));
  connect(run_, &QAction::triggered, this, std::move(run));
  connect(stop_, &QAction::triggered, this, std::move(stop));
  connect(pause_, &QAction::toggled, this, [this](bool on) {
    if (on) {
      controller_->pause();
    } else {
      controller_->resume();
    }
  });
  connect(controller_, &TrainingController::pausedChanged, pause_, &QAction::setChecked);
  connect(controller_, &TrainingController::started, this, &RunActions::update);
  connect(controller_, &TrainingController::finished, this, &RunActions::update);
  new RunKeys(window, pause_, stop_);  // Space and Esc wherever the focus is
  update();
}

void RunActions::addTo(QToolBar* bar) const {
  bar->addAction(run_);
  bar->addAction(pause_);
  bar->addAction(stop_);
}

void RunActions::update() {
  const bool running = controller_->isRunning();
  run_->setEnabled(!running);
  // Workers of a data-parallel run would wait on a paused rank until they time out.
  const bool parallel = controller_->config().workers > 1;
  pause_->setEnabled(running && !parallel);
  pause_->setToolTip(parallel && running
                         ? tr("Pause is off while %1 workers train: stop the run instead")
                               .arg(controller_->config().workers)
                         : tr("Pause or resume at the next window boundary (Space)"));
  stop_->setEnabled(running);
  if (!running) pause_->setChecked(false);
}

}  // namespace accumlab::ui
