// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <vector>

#include "accumlab/metrics_sink.h"

namespace accumlab::testing {

/// Keeps every record of a run, for assertions. Optionally calls `on_step` for each step
/// (on the training thread) so a test can act mid-run.
class RecordingSink : public MetricsSink {
 public:
  void onRunStarted(const RunInfo& i) override { info = i; }
  void onStep(const StepRecord& r) override {
    steps.push_back(r);
    if (on_step) on_step(r);
  }
  void onEval(const EvalRecord& r) override { evals.push_back(r); }
  void onEvent(const EventRecord& r) override { events.push_back(r); }
  void onProbe(const ProbeRecord& r) override { probes.push_back(r); }
  void onArmFinished(const ArmSummary& s) override { finished.push_back(s); }

  /// The step records of one arm, in order.
  std::vector<StepRecord> of(ArmKind arm) const {
    std::vector<StepRecord> out;
    for (const auto& s : steps) {
      if (s.arm == arm) out.push_back(s);
    }
    return out;
  }

  RunInfo info;
  std::vector<StepRecord> steps;
  std::vector<EvalRecord> evals;
  std::vector<EventRecord> events;
  std::vector<ProbeRecord> probes;
  std::vector<ArmSummary> finished;
  std::function<void(const StepRecord&)> on_step;
};

/// The summary of one arm of a run.
inline const ArmSummary& armOf(const RunSummary& s, ArmKind arm) {
  for (const auto& a : s.arms) {
    if (a.arm == arm) return a;
  }
  throw std::out_of_range("arm not in run");
}

}  // namespace accumlab::testing
