#pragma once

#include <optional>
#include <string>
#include <vector>

#include "accumlab/records.h"

namespace accumlab::ui {

/// Records the training thread produced since the last drain, in arrival order per kind.
/// Plain data: built on the training thread, handed over under MetricsBuffer's mutex, then
/// owned by the GUI thread.
struct RecordBatch {
  std::optional<RunInfo> started;  ///< set by the batch that saw onRunStarted
  std::vector<StepRecord> steps;
  std::vector<EvalRecord> evals;
  std::vector<EventRecord> events;
  std::vector<ProbeRecord> probes;
  std::vector<ArmSummary> arm_summaries;
  std::optional<RunSummary> finished;  ///< set by the batch that saw onRunFinished

  /// True when there is nothing to hand over.
  bool empty() const {
    return !started && steps.empty() && evals.empty() && events.empty() && probes.empty() &&
           arm_summaries.empty() && !finished;
  }
};

}  // namespace accumlab::ui
