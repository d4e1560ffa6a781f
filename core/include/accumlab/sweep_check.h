// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/sweep.h"

namespace accumlab {

/// Checks a new sweep before it is stored and its workers start: every point's config is
/// valid and reads no file of the store at `store_path`. Throws InputError naming what is
/// wrong.
void checkSweepPoints(const ExperimentConfig& base, const std::vector<SweepPoint>& points,
                      const std::string& store_path);

/// Trains one sample of `point` here, storing nothing: bad data, or a model that does not
/// fit the data, throws InputError before the sweep is stored. Loads the dataset and uses
/// LibTorch's global generator: a worker thread's call, never the GUI thread's.
void dryRunSweepPoint(const ExperimentConfig& base, const SweepPoint& point);

}  // namespace accumlab
