// SPDX-License-Identifier: GPL-3.0-or-later
#include "controller/training_controller.h"

#include <QElapsedTimer>
#include <QThread>
#include <algorithm>
#include <exception>

#include "accumlab/device.h"
#include "accumlab/run_session.h"
#include "accumlab/run_store.h"
#include "accumlab/training_rules.h"
#include "controller/cli_path.h"
#include "controller/training_worker.h"

namespace accumlab::ui {

TrainingController::TrainingController(QObject* parent) : QObject(parent) {
  thread_.setObjectName("accumlab-training");
  worker_ = new TrainingWorker;
  worker_->moveToThread(&thread_);
  connect(worker_, &TrainingWorker::finished, this, &TrainingController::onWorkerFinished,
          Qt::QueuedConnection);
  drain_timer_.setInterval(kDrainIntervalMs);
  connect(&drain_timer_, &QTimer::timeout, this, &TrainingController::drain);
  thread_.start();
}

TrainingController::~TrainingController() {
  if (running_) session_->trainer().requestStop();
  thread_.requestInterruption();
  thread_.quit();
  thread_.wait();
  delete worker_;  // its thread has ended, so deleting it here is safe
}

void TrainingController::setStore(std::string path, int64_t checkpoint_every) {
  store_path_ = std::move(path);
  checkpoint_every_ = checkpoint_every;
}

std::vector<StoredRun> TrainingController::storedRuns() const {
  return session_ ? session_->storedRuns() : std::vector<StoredRun>{};
}

bool TrainingController::resume(const ExperimentConfig& config, int64_t experiment_id) {
  resume_experiment_ = experiment_id;
  const bool ok = start(config);
  resume_experiment_ = 0;
  return ok;
}

bool TrainingController::start(const ExperimentConfig& config,
                               const std::optional<SweepTarget>& target,
                               std::shared_ptr<MetricsSink> recorder) {
  if (running_) {
    emit startFailed(tr("An experiment is already running; stop it first."));
    return false;
  }
  // The previous run has ended (finished() was emitted), so its objects are idle.
  session_.reset();
  recorder_.reset();
  buffer_.take();
  RunSessionOptions options;
  options.store_path = store_path_;
  options.resume_experiment = resume_experiment_;
  // A data-parallel run cannot be resumed (its ranks' states live in other processes).
  if (config.workers == 1) options.checkpoint_every = checkpoint_every_;
  options.target = target;
  options.worker_program = accumlabCliPath().toStdString();
  try {
    session_ = std::make_unique<RunSession>(config, options);
  } catch (const std::exception& e) {
    emit startFailed(QString::fromStdString(e.what()));
    return false;
  }
  config_ = config;
  gui_share_ = guiShare(config, QThread::idealThreadCount(), cudaAvailable());
  running_ = true;
  paused_ = false;
  recorder_ = std::move(recorder);
  RunSession* session = session_.get();
  std::vector<MetricsSink*> sinks;
  if (recorder_) sinks.push_back(recorder_.get());
  sinks.push_back(&buffer_);
  QMetaObject::invokeMethod(
      worker_, [worker = worker_, session, sinks] { worker->train(session, sinks); },
      Qt::QueuedConnection);
  drain_timer_.start();
  emit started();
  return true;
}

void TrainingController::pause() {
  if (!running_ || paused_) return;
  session_->trainer().requestPause();
  paused_ = true;
  emit pausedChanged(true);
}

void TrainingController::resume() {
  if (!running_ || !paused_) return;
  session_->trainer().requestResume();
  paused_ = false;
  emit pausedChanged(false);
}

void TrainingController::stop() {
  if (!running_) return;
  session_->trainer().requestStop();
}

void TrainingController::setMicroBatch(int64_t m) {
  if (running_) session_->trainer().requestMicroBatch(m);
}

void TrainingController::setAccum(int64_t k) {
  if (running_) session_->trainer().requestAccum(k);
}

void TrainingController::setDrainInterval(int ms) {
  drain_timer_.setInterval(std::max(ms, kDrainIntervalMs));
}

void TrainingController::setPacing(std::function<double()> later_cost_ms) {
  later_cost_ms_ = std::move(later_cost_ms);
}

void TrainingController::drain() {
  RecordBatch batch = buffer_.take();
  if (batch.empty()) return;
  QElapsedTimer handling;
  handling.start();
  emit batchReady(batch);
  if (!later_cost_ms_) return;
  const double cost_ms = static_cast<double>(handling.nsecsElapsed()) / 1e6 + later_cost_ms_();
  setDrainInterval(std::min(kSlowestDrainMs, static_cast<int>(cost_ms * gui_share_)));
}

double TrainingController::guiShare(const ExperimentConfig& config, int cores, bool cuda) {
  cores = std::max(1, cores);
  if (config.workers > 1) return config.workers >= cores ? kGuiShareAllCoresTraining : kGuiShare;
  const bool on_cpu = config.device == "cpu" || (config.device == "auto" && !cuda);
  const int threads = armsAtOnce(config, cores, on_cpu) * std::max(1, config.threads);
  return on_cpu && threads >= cores ? kGuiShareAllCoresTraining : kGuiShare;
}

void TrainingController::onWorkerFinished(const QString& error, bool input_error) {
  // Every sink call happened before the worker emitted, so this drain sees the last records.
  drain_timer_.stop();
  drain();
  running_ = false;
  if (paused_) {
    paused_ = false;
    emit pausedChanged(false);
  }
  emit finished(error, input_error);
}

}  // namespace accumlab::ui
