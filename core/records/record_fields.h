// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <vector>

#include "accumlab/records.h"
#include "records/record_field.h"

namespace accumlab {

/// The field tables: every number and flag of each record, once, in storage order. The store's
/// tables, inserts and readers, the CSV, JSON and TensorBoard exports, the run's JSON summary
/// and the checkpoints walk them, so a new field of a record is one line in its table (with
/// the schema version that adds its column, and that version's migration in
/// core/store/schema.cpp adding every table's columns of that version).

/// Step, evaluation and probe tables begin with their axes: step, samples_seen and wall_ms.
inline constexpr size_t kAxisFields = 3;

/// A view of consecutive fields of a table (for range-for).
template <typename R>
struct FieldRange {
  const RecordField<R>* first;
  const RecordField<R>* last;
  const RecordField<R>* begin() const { return first; }
  const RecordField<R>* end() const { return last; }
};

/// The fields of a step, evaluation or probe table after its axes.
template <typename R>
FieldRange<R> withoutAxes(const std::vector<RecordField<R>>& fields) {
  return {fields.data() + kAxisFields, fields.data() + fields.size()};
}

/// StepRecord, except `arm` (the run is the arm): step, samples_seen and wall_ms first, then
/// the metrics of docs/measurements.md. Table step_metrics.
const std::vector<RecordField<StepRecord>>& stepFields();
/// EvalRecord, except `arm` and `text_sample` (text, stored beside them). Table evals.
const std::vector<RecordField<EvalRecord>>& evalFields();
/// ProbeRecord, except `arm` and `histogram` (JSON, stored beside them). Table probes.
const std::vector<RecordField<ProbeRecord>>& probeFields();
/// ArmSummary's numbers and flags (its texts, arm and status are written beside them): the
/// JSON summary of `run --json`, kept with each stored run.
const std::vector<RecordField<ArmSummary>>& armSummaryFields();

/// PooledProbe: the fixed-weight probes of a run pooled into its headline ratio with its 90%
/// interval, under the names of `run --json`'s `variance_probe` (`probes` there is the count
/// of probes made; the count pooled is `pooled`). The exports write it per run: JSON in each
/// run's summary as `variance_probe`, CSV as `probe_…` columns on the rows of probed steps.
const std::vector<RecordField<PooledProbe>>& pooledProbeFields();

/// GradCheckTally, under the names an arm's checkpoint keeps it by.
const std::vector<RecordField<GradCheckTally>>& gradCheckFields();

}  // namespace accumlab
