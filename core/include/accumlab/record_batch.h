// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include "accumlab/records.h"

namespace accumlab {

/// The records a run produced since the last hand-over, in arrival order per kind: what a
/// BatchingSink collects on the training thread and another thread (the store's writer, the
/// GUI) takes as a whole. Plain data.
struct RecordBatch {
  std::optional<RunInfo> started;  ///< set by the batch that saw onRunStarted
  std::vector<StepRecord> steps;
  std::vector<EvalRecord> evals;
  std::vector<EventRecord> events;
  std::vector<ProbeRecord> probes;
  std::vector<ArmSummary> arm_summaries;  ///< arms that ended, after their rows
  /// The final weights of arms that ended (only the store's sink collects them).
  std::vector<ArmWeights> arm_weights;
  std::optional<RunSummary> finished;  ///< set by the batch that saw onRunFinished

  /// True when there is nothing to hand over.
  bool empty() const {
    return !started && steps.empty() && evals.empty() && events.empty() && probes.empty() &&
           arm_summaries.empty() && arm_weights.empty() && !finished;
  }
};

}  // namespace accumlab
