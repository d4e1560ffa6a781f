// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/live_session.h"

#include <exception>

#include "accumlab/record_batch.h"
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
    p_.status->setPaused(paused);
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
  if (batch.started && resumed_run_ > 0 && batch.started->resumed_after_ms >= 0) {
    // The store dropped what came after the checkpoint before this batch was drained: what
    // it holds now is the run up to where training goes on.
    RecordBatch rest = batch;
    rest.started.reset();
    p_.live->append(storedHistory(batch));
    p_.live->append(rest);
  } else {
    p_.live->append(batch);
  }
  if (batch.started) {
    resumed_run_ = 0;
    p_.runs->refresh();  // the store sink created the rows before this batch was drained
  }
}

RecordBatch LiveSession::storedHistory(const RecordBatch& first) const {
  RecordBatch history;
  history.started = first.started;
  const double after = first.started->resumed_after_ms;
  std::vector<RunData> stored;
  try {
    stored = p_.load_experiment(resumed_run_);
  } catch (const std::exception& e) {
    p_.show_error(tr("The resumed run's stored history could not be read: %1")
                      .arg(QString::fromStdString(e.what())));
  }
  if (stored.empty()) return history;
  const RunData& run = stored.front();
  for (const ArmSeries& arm : run.arms) {
    for (const StepRecord& s : arm.steps) {
      if (s.wall_ms <= after) history.steps.push_back(s);
    }
    for (const EvalRecord& e : arm.evals) {
      if (e.wall_ms <= after) history.evals.push_back(e);
    }
  }
  for (const ProbeRecord& p : run.probes) {
    if (p.wall_ms <= after) history.probes.push_back(p);
  }
  for (const EventRecord& e : run.events) {
    if (e.wall_ms <= after) history.events.push_back(e);
  }
  return history;
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
  resumed_run_ = 0;
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
