// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accumlab/experiment_config.h"
#include "accumlab/input_file.h"
#include "data/dataset.h"
#include "data/synthetic.h"

namespace accumlab {

/// Loads the dataset named by `config.data` (docs/data-and-models.md), split for training and
/// validation. Throws InputError with a message naming the file and the problem.
/// For `linreg`, `truth` (if given) receives the true parameters. Files are read only when
/// they are regular files, each to a stated limit; `stop` ends a read with ReadStopped.
Dataset loadDataset(const ExperimentConfig& config, LinregTruth* truth = nullptr,
                    const ReadStop& stop = ReadStop());

}  // namespace accumlab
