#pragma once

#include <mutex>
#include <string>

#include "accumlab/metrics_sink.h"
#include "series/record_batch.h"

namespace accumlab::ui {

/// The GUI's MetricsSink: the training thread appends records, the GUI thread takes them in
/// batches (DESIGN.md §5). Every member is guarded by `mutex_`; appends are O(1) and never
/// wait on the GUI.
class MetricsBuffer : public MetricsSink {
 public:
  void onRunStarted(const RunInfo& info) override;
  void onStep(const StepRecord& record) override;
  void onEval(const EvalRecord& record) override;
  void onEvent(const EventRecord& record) override;
  void onProbe(const ProbeRecord& record) override;
  void onArmFinished(const ArmSummary& summary) override;
  void onRunFinished(const RunSummary& summary) override;

  /// Moves everything appended so far out of the buffer (any thread).
  RecordBatch take();
  /// Number of step records waiting (any thread).
  size_t pendingSteps() const;

 private:
  mutable std::mutex mutex_;
  RecordBatch pending_;
};

}  // namespace accumlab::ui
