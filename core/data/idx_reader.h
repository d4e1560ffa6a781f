// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/input_file.h"
#include "data/dataset.h"

namespace accumlab {

/// The class names of Fashion-MNIST, in label order.
const std::vector<std::string>& fashionMnistClassNames();

/// Reads one unsigned-byte IDX file (gzipped or not) into a uint8 tensor of its dimensions.
/// The header must announce `expected_dims` dimensions (1 for labels, 3 for images) and the
/// content must hold exactly that many bytes; anything else is an InputError naming the file.
/// At most kMaxIdxBytes of content are read; `stop` is asked between chunks.
torch::Tensor readIdx(const std::string& path, int expected_dims,
                      const ReadStop& stop = ReadStop());

/// Loads an IDX folder (MNIST, Fashion-MNIST, EMNIST…): train-images/-labels are required;
/// t10k- (or test-) images/labels, when present, become the validation split, otherwise
/// `val_fraction` of the training samples is held out by a seeded permutation.
/// Images are kept as uint8 [N, 1, rows, cols] with scale 1/255.
Dataset loadIdxFolder(const std::string& dir, const std::string& name,
                      std::vector<std::string> class_names, double val_fraction, uint64_t seed,
                      const ReadStop& stop = ReadStop());

}  // namespace accumlab
