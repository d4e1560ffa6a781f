#include "controller/training_controller.h"

#include <QElapsedTimer>
#include <algorithm>
#include <exception>

#include "accumlab/local_workers.h"
#include "accumlab/target_stop.h"
#include "accumlab/trainer.h"
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
  if (trainer_) trainer_->requestStop();
  thread_.requestInterruption();
  thread_.quit();
  thread_.wait();
  delete worker_;  // its thread has ended, so deleting it here is safe
}

void TrainingController::setSinkFactory(SinkFactory factory) { sink_factory_ = std::move(factory); }

void TrainingController::setCheckpointing(int64_t samples, std::function<std::string()> path) {
  checkpoint_every_ = samples;
  checkpoint_path_ = std::move(path);
}

bool TrainingController::resume(const ExperimentConfig& config, const std::string& checkpoint) {
  resume_from_ = checkpoint;
  const bool ok = start(config);
  resume_from_.clear();
  return ok;
}

bool TrainingController::start(const ExperimentConfig& config,
                               const std::optional<SweepTarget>& target) {
  if (running_) {
    emit startFailed(tr("An experiment is already running; stop it first."));
    return false;
  }
  // The previous run has ended (finished() was emitted), so its objects are idle.
  trainer_.reset();
  workers_.reset();
  fan_out_.reset();
  extra_sink_.reset();
  target_sink_.reset();
  buffer_.take();
  try {
    if (sink_factory_) extra_sink_ = sink_factory_(config);
    trainer_ = std::make_unique<Trainer>(config);
    if (!resume_from_.empty()) trainer_->resumeFrom(resume_from_);
    // A data-parallel run cannot be resumed (its ranks' states live in other processes).
    if (checkpoint_every_ > 0 && checkpoint_path_ && config.workers == 1) {
      trainer_->checkpointEvery(checkpoint_every_, checkpoint_path_);
    }
    if (config.workers > 1) {
      // Ranks 1…N−1 are accumlab-cli processes, started once this rank has set up the
      // rendezvous in their private folder (nothing listens on the network).
      WorkerGroupOptions group;  // the default timeout, as the CLI's --worker-timeout
      workers_ = std::make_unique<LocalWorkers>(accumlabCliPath().toStdString(), config,
                                                group.timeout_s);
      group.rendezvous_dir = workers_->rendezvousDir();
      group.on_listening = [workers = workers_.get()](int) { workers->start(); };
      trainer_->joinWorkers(group);
    }
  } catch (const std::exception& e) {
    extra_sink_.reset();
    workers_.reset();
    emit startFailed(QString::fromStdString(e.what()));
    return false;
  }
  // The extra sink (the store) goes first, so its rows exist by the time the GUI sees a
  // record in the buffer and refreshes the runs list.
  std::vector<MetricsSink*> sinks;
  if (extra_sink_) sinks.push_back(extra_sink_.get());
  sinks.push_back(&buffer_);
  if (target) {
    target_sink_ = std::make_unique<TargetStop>(
        config.arms.size(), *target,
        [trainer = trainer_.get()](const std::string& reason) { trainer->requestStop(reason); });
    sinks.push_back(target_sink_.get());
  }
  config_ = config;
  fan_out_ = std::make_unique<FanOutSink>(sinks);

  running_ = true;
  paused_ = false;
  Trainer* trainer = trainer_.get();
  MetricsSink* sink = fan_out_.get();
  LocalWorkers* workers = workers_.get();
  QMetaObject::invokeMethod(
      worker_, [worker = worker_, trainer, sink, workers] { worker->train(trainer, sink, workers); },
      Qt::QueuedConnection);
  drain_timer_.start();
  emit started();
  return true;
}

void TrainingController::pause() {
  if (!running_ || paused_) return;
  trainer_->requestPause();
  paused_ = true;
  emit pausedChanged(true);
}

void TrainingController::resume() {
  if (!running_ || !paused_) return;
  trainer_->requestResume();
  paused_ = false;
  emit pausedChanged(false);
}

void TrainingController::stop() {
  if (!running_) return;
  trainer_->requestStop();
}

void TrainingController::setMicroBatch(int64_t m) {
  if (running_) trainer_->requestMicroBatch(m);
}

void TrainingController::setAccum(int64_t k) {
  if (running_) trainer_->requestAccum(k);
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
  setDrainInterval(std::min(kSlowestDrainMs, static_cast<int>(cost_ms * kGuiShare)));
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
