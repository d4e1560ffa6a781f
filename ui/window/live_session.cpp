// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/live_session.h"

#include "controller/training_controller.h"
#include "experiment/experiment_panel.h"
#include "plots/plot_grid.h"
#include "runs/runs_panel.h"
#include "series/live_run.h"
#include "series/lr_hint.h"
#include "series/shown_runs.h"
#include "window/run_status_bar.h"

namespace accumlab::ui {

LiveSession::LiveSession(LiveParts parts, QObject* parent) : QObject(parent), p_(std::move(parts)) {
  TrainingController* c = p_.controller;
  c->setPacing([plots = p_.plots] { return plots->replotCostMs(); });
  p_.shown->setLiveRun(p_.live);
  p_.status->setLiveRun(p_.live);
  connect(c, &TrainingController::started, this, &LiveSession::onStarted);
  connect(c, &TrainingController::batchReady, this, &LiveSession::onBatch);
  connect(c, &TrainingController::finished, this, &LiveSession::onFinished);
  connect(c, &TrainingController::pausedChanged, this, [this](bool paused) {
    p_.status->setState(paused ? tr("Paused (Space goes on)") : tr("Training (Esc stops)"));
  });
  connect(p_.live, &LiveRun::appended, this, &LiveSession::offerHint);
  connect(p_.experiment, &ExperimentPanel::microBatchChanged, c,
          [c](qint64 m) { c->setMicroBatch(m); });
  connect(p_.experiment, &ExperimentPanel::accumChanged, c, [c](qint64 k) { c->setAccum(k); });
}

void LiveSession::onStarted() {
  // The live run begins with its first batch, once data and model are loaded: a run that
  // fails to start leaves the previous plots on screen.
  p_.status->resetProgress();
  hinted_ = false;
  p_.status->setState(tr("Loading data…"));
  p_.experiment->setRunning(true);
}

void LiveSession::onBatch(const RecordBatch& batch) {
  if (batch.started) {
    const ExperimentConfig& config = p_.controller->config();
    p_.live->begin(
        tr("live · %1 · %2 · %3×%4")
            .arg(QString::fromStdString(config.data), QString::fromStdString(config.model))
            .arg(config.micro_batch)
            .arg(config.accum));
    p_.status->setDevice(QString::fromStdString(batch.started->device));
    p_.status->setState(p_.controller->isPaused() ? tr("Paused (Space goes on)")
                                                  : tr("Training (Esc stops)"));
  }
  p_.live->append(batch);
  if (batch.started)
    p_.runs->refresh();  // the store sink created the rows before this batch was drained
}

void LiveSession::offerHint() {
  // Once per run: accum at no-accum's LR may crawl; say so, change nothing.
  if (hinted_) return;
  if (const QString hint = lrScalingHint(p_.live->data()); !hint.isEmpty()) {
    hinted_ = true;
    p_.plots->addNote(ArmKind::kAccum, tr("try LR scaling: linear or sqrt"));
    p_.status->showMessage(hint, 20000);
  }
}

void LiveSession::onFinished(const QString& error, bool input_error) {
  p_.experiment->setRunning(false);
  if (p_.live->isRunning()) {
    p_.live->end(!error.isEmpty());  // the status bar shows how it ended
  } else {
    p_.status->showFinished(nullptr, !error.isEmpty());  // it never started
  }
  p_.runs->refresh();
  if (!error.isEmpty()) {
    p_.show_error(input_error ? error
                              : tr("Training stopped with an internal error: %1").arg(error));
  }
}

}  // namespace accumlab::ui
