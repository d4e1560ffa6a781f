// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

#include "series/run_data.h"

namespace accumlab {
class RunStore;
}

namespace accumlab::ui {

/// Loads stored runs for the plots and reports: one RunData per experiment, holding the
/// arms among `run_ids` in arm order. Throws InputError (from the store) for a missing id.
std::vector<RunData> loadRuns(RunStore& store, const std::vector<int64_t>& run_ids);
/// Loads every arm of the experiments the runs belong to (one RunData per experiment).
std::vector<RunData> loadExperiments(RunStore& store, const std::vector<int64_t>& run_ids);

}  // namespace accumlab::ui
