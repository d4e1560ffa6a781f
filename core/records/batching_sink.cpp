// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/batching_sink.h"

namespace accumlab {

void BatchingSink::onRunStarted(const RunInfo& info) {
  append([&](RecordBatch& b) { b.started = info; }, Urgency::kNow);
}

void BatchingSink::onStep(const StepRecord& record) {
  append([&](RecordBatch& b) { b.steps.push_back(record); }, Urgency::kLater);
}

void BatchingSink::onEval(const EvalRecord& record) {
  append([&](RecordBatch& b) { b.evals.push_back(record); }, Urgency::kLater);
}

void BatchingSink::onEvent(const EventRecord& record) {
  append([&](RecordBatch& b) { b.events.push_back(record); }, Urgency::kLater);
}

void BatchingSink::onProbe(const ProbeRecord& record) {
  append([&](RecordBatch& b) { b.probes.push_back(record); }, Urgency::kLater);
}

void BatchingSink::onArmFinished(const ArmSummary& summary) {
  append([&](RecordBatch& b) { b.arm_summaries.push_back(summary); }, Urgency::kNow);
}

void BatchingSink::onRunFinished(const RunSummary& summary) {
  append([&](RecordBatch& b) { b.finished = summary; }, Urgency::kNow);
}

}  // namespace accumlab
