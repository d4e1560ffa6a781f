// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

#include "accumlab/experiment_config.h"
#include "accumlab/memory_model.h"

namespace accumlab {

/// Measures `config`'s model on its data, optimizer, dtype and device (no noise statistics):
/// two updates with one micro-batch of `small` samples, two with one of `large`, and two with
/// two micro-batches of `small`, each pair from fresh weights. The first two fit the line, the
/// third gives what accumulating adds; `k1_splits` follows the config's noise statistics and
/// the model. Loads the dataset and trains, so call it on a worker
/// thread, never on the GUI thread. Throws InputError for a bad config (as Trainer::run does).
MemoryModel probeMemoryModel(const ExperimentConfig& config, int64_t small = 8, int64_t large = 32);

}  // namespace accumlab
