#include "controller/metrics_buffer.h"

#include <utility>

namespace accumlab::ui {

void MetricsBuffer::onRunStarted(const RunInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.started = info;
}

void MetricsBuffer::onStep(const StepRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.steps.push_back(record);
}

void MetricsBuffer::onEval(const EvalRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.evals.push_back(record);
}

void MetricsBuffer::onEvent(const EventRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.events.push_back(record);
}

void MetricsBuffer::onProbe(const ProbeRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.probes.push_back(record);
}

void MetricsBuffer::onArmFinished(const ArmSummary& summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.arm_summaries.push_back(summary);
}

void MetricsBuffer::onRunFinished(const RunSummary& summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.finished = summary;
}

RecordBatch MetricsBuffer::take() {
  // Swap under the lock and return by value: the lock is held for a few pointer moves, so
  // the training thread never waits for the GUI to plot.
  RecordBatch out;
  std::lock_guard<std::mutex> lock(mutex_);
  std::swap(out, pending_);
  return out;
}

size_t MetricsBuffer::pendingSteps() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_.steps.size();
}

}  // namespace accumlab::ui
