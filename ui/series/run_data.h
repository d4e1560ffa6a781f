// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/record_batch.h"
#include "accumlab/records.h"

namespace accumlab::ui {

/// The history of one arm: every step and evaluation in order, and its summary once ended.
struct ArmSeries {
  ArmKind arm = ArmKind::kNoAccum;
  std::vector<StepRecord> steps;
  std::vector<EvalRecord> evals;
  ArmSummary summary;        ///< status kRunning until the arm ends
  bool has_summary = false;  ///< true once `summary` is filled
};

/// Everything the plots, the status bar and the report need about one run (live or loaded
/// from the store). Owned by the GUI thread.
struct RunData {
  std::string label;     ///< how the run is named in legends ("runs 4–6 · fashion-mnist · …")
  std::string id_label;  ///< its stored runs' ids alone ("run 4", "runs 4–6"); empty when live
  RunInfo info;
  std::vector<ArmSeries> arms;      ///< in the config's arm order
  std::vector<EventRecord> events;  ///< slider changes, pauses, divergence, …
  std::vector<ProbeRecord> probes;  ///< fixed-weight variance probes, in order

  /// The series of `arm`, created on first use.
  ArmSeries& arm(ArmKind kind);
  /// The series of `arm`, or nullptr.
  const ArmSeries* find(ArmKind kind) const;
  /// Appends a drained batch (the first one carries RunInfo).
  void append(const RecordBatch& batch);
  /// Summaries of the arms that have one, in arm order.
  std::vector<ArmSummary> summaries() const;
  /// Largest samples_seen of any arm.
  int64_t samplesSeen() const;
};

}  // namespace accumlab::ui
