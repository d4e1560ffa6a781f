// SPDX-License-Identifier: GPL-3.0-or-later
#include "series/run_data.h"

#include <algorithm>

namespace accumlab::ui {

ArmSeries& RunData::arm(ArmKind kind) {
  for (ArmSeries& a : arms) {
    if (a.arm == kind) return a;
  }
  ArmSeries& added = arms.emplace_back();
  added.arm = kind;
  added.summary.arm = kind;
  // Keep the canonical arm order so colours, legends and tables line up everywhere.
  std::sort(arms.begin(), arms.end(),
            [](const ArmSeries& a, const ArmSeries& b) { return a.arm < b.arm; });
  return this->arm(kind);
}

const ArmSeries* RunData::find(ArmKind kind) const {
  for (const ArmSeries& a : arms) {
    if (a.arm == kind) return &a;
  }
  return nullptr;
}

void RunData::append(const RecordBatch& batch) {
  if (batch.started) {
    info = *batch.started;
    for (ArmKind kind : info.config.arms) arm(kind);
  }
  for (const StepRecord& s : batch.steps) arm(s.arm).steps.push_back(s);
  for (const EvalRecord& e : batch.evals) arm(e.arm).evals.push_back(e);
  events.insert(events.end(), batch.events.begin(), batch.events.end());
  probes.insert(probes.end(), batch.probes.begin(), batch.probes.end());
  for (const ArmSummary& s : batch.arm_summaries) {
    ArmSeries& a = arm(s.arm);
    a.summary = s;
    a.has_summary = true;
  }
  if (batch.finished) {
    for (const ArmSummary& s : batch.finished->arms) {
      ArmSeries& a = arm(s.arm);
      a.summary = s;
      a.has_summary = true;
    }
  }
}

std::vector<ArmSummary> RunData::summaries() const {
  std::vector<ArmSummary> out;
  for (const ArmSeries& a : arms) {
    if (a.has_summary) out.push_back(a.summary);
  }
  return out;
}

int64_t RunData::samplesSeen() const {
  int64_t n = 0;
  for (const ArmSeries& a : arms) {
    if (!a.steps.empty()) n = std::max(n, a.steps.back().samples_seen);
  }
  return n;
}

}  // namespace accumlab::ui
