// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accumlab/experiment_config.h"
#include "data/dataset.h"
#include "data/synthetic.h"

namespace accumlab {

/// Loads the dataset named by `config.data` (docs/data-and-models.md), split for training and
/// validation. Throws InputError with a message naming the file and the problem.
/// For `linreg`, `truth` (if given) receives the true parameters.
Dataset loadDataset(const ExperimentConfig& config, LinregTruth* truth = nullptr);

}  // namespace accumlab
