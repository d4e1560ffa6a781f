// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/input_file.h"
#include "data/dataset.h"

namespace accumlab {

/// Loads a CSV file (docs/data-and-models.md): delimiter `,` `;` or tab and the header row are
/// detected, `label` picks the label column by name or 0-based index (empty: the last column),
/// every other column must be numeric. Classification labels (text or integers) are mapped to
/// indices in sorted order and listed in Dataset::class_names; `task` kAuto decides from the
/// labels when that is obvious. Features are standardised with the training split's mean and
/// standard deviation. A bad cell or row is an InputError naming the file, line and column.
/// At most kMaxCsvBytes (1 GiB) of text are read, only from a regular file; `stop` is asked
/// between chunks and rows.
Dataset loadCsv(const std::string& path, const std::string& label, Task task, double val_fraction,
                uint64_t seed, const ReadStop& stop = ReadStop());

}  // namespace accumlab
