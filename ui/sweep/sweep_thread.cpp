// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep/sweep_thread.h"

#include <QMetaObject>
#include <exception>
#include <utility>

#include "accumlab/generator_gate.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_check.h"

namespace accumlab::ui {

SweepThread::SweepThread(std::function<void(const SweepEvent&)> tell,
                         std::function<void(const QString&, bool)> ended, QObject* parent)
    : QObject(parent), tell_(std::move(tell)), ended_(std::move(ended)) {}

SweepThread::~SweepThread() {
  if (!thread_) return;
  requestStop();
  thread_->wait();
}

bool SweepThread::start(SweepRequest request) {
  if (isRunning()) return false;
  if (thread_) thread_->wait();
  delete thread_;
  stop_.store(false);
  thread_ = QThread::create([this, request = std::move(request)] { train(request); });
  thread_->setObjectName(QStringLiteral("sweep"));
  thread_->start();
  return true;
}

bool SweepThread::isRunning() const { return thread_ && thread_->isRunning(); }

void SweepThread::requestStop() {
  stop_.store(true);
  const std::lock_guard<std::mutex> lock(runner_mutex_);
  if (runner_) runner_->requestStop();
}

void SweepThread::train(const SweepRequest& r) {
  // Everything told goes to the GUI thread, in order.
  const auto post = [this](std::function<void()> f) {
    QMetaObject::invokeMethod(this, std::move(f), Qt::QueuedConnection);
  };
  QString error;
  bool stopped = false;
  try {
    {
      // The dry run seeds LibTorch's global generator; a training run holds it for its whole
      // length, and then the first point's worker reports bad input instead.
      std::unique_lock<std::mutex> gate(globalGeneratorGate(), std::try_to_lock);
      if (gate.owns_lock()) dryRunSweepPoint(r.base, r.points.front());
    }
    RunStore store(r.store_path);  // this thread's own connection
    SweepRunnerOptions options;
    options.program = r.program;
    options.store_path = r.store_path;
    options.jobs = r.jobs;
    SweepRunner runner(createSweep(store, r.base, r.target, r.jobs, r.points), options);
    {
      const std::lock_guard<std::mutex> lock(runner_mutex_);
      runner_ = &runner;
      if (stop_.load()) runner.requestStop();
    }
    SweepEventObserver observer(
        [this, &post](const SweepEvent& e) { post([this, e] { tell_(e); }); }, r.store_path,
        r.jobs);
    try {
      stopped = runner.run(observer).stopped;
    } catch (...) {
      const std::lock_guard<std::mutex> lock(runner_mutex_);
      runner_ = nullptr;
      throw;
    }
    const std::lock_guard<std::mutex> lock(runner_mutex_);
    runner_ = nullptr;
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  post([this, error, stopped] { ended_(error, stopped); });
}

}  // namespace accumlab::ui
