// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

#include "accumlab/input_file.h"
#include "data/dataset.h"

namespace accumlab {

/// Loads the CIFAR-10 binary version from `dir` (or its cifar-10-batches-bin subfolder):
/// data_batch_1..5.bin (at least one) for training and test_batch.bin, when present, as the
/// validation split; otherwise `val_fraction` of training is held out by a seeded permutation.
/// Each file must be a whole number of 3073-byte records (label byte + 3x32x32 pixels).
/// Images are kept as uint8 [N, 3, 32, 32] with scale 1/255.
/// Each batch file may hold at most 256 MiB; `stop` is asked between chunks.
Dataset loadCifar10Folder(const std::string& dir, double val_fraction, uint64_t seed,
                          const ReadStop& stop = ReadStop());

}  // namespace accumlab
