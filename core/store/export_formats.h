// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "accumlab/run_store.h"

namespace accumlab::store {

/// Everything exported about one run.
struct ExportedRun {
  RunDetail detail;
  RunSeries series;
};

/// Long (tidy) CSV: one row per run and step — run_id, arm, step, samples_seen, wall_ms, one
/// column per metric, then val_loss and val_accuracy on the steps that were evaluated (an
/// evaluation at a step with no step row gets a row of its own). Empty cells are NaN.
std::string exportCsv(const std::vector<ExportedRun>& runs);

/// The run's summary as an export gives it: the stored summary with the run's headline, its
/// probes pooled, under "variance_probe" (as `run --json` gives it). The JSON export and the
/// TensorBoard log's summary text both write this.
std::string exportedSummaryJson(const ExportedRun& run);

/// JSON: {"format": "accumlab-runs", "schema_version", "runs": [{ids, names, status, times,
/// config, summary, device, descriptions, tags, note, events, "metrics": {column: [values]},
/// "evals": {column: [values]}}]}. NaN is null.
std::string exportJson(const std::vector<ExportedRun>& runs, int indent = 1);

}  // namespace accumlab::store
