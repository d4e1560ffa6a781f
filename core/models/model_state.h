// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A model's tensors and an optimizer's state, as the run's checkpoint holds them for each arm
// (core/train/run_checkpoint.cpp, the one checkpoint format).

#include <torch/torch.h>

#include <string>

#include "models/model.h"

namespace accumlab {

/// The optimizer's state as the bytes of a torch archive, and back: loading from bytes
/// allocates the state tensors at that moment (so a memory ledger active then counts them).
std::string optimizerStateBytes(torch::optim::Optimizer& optimizer);
/// Throws InputError naming `path` when this optimizer cannot take the state.
void loadOptimizerStateBytes(torch::optim::Optimizer& optimizer, const std::string& bytes,
                             const std::string& path);
/// The model's parameters and buffers, under keys that start with `prefix`. Reading throws
/// InputError naming `path` when they belong to a model of another layout.
void writeModelTensors(torch::serialize::OutputArchive& archive, const std::string& prefix,
                       Model& model);
void readModelTensors(torch::serialize::InputArchive& archive, const std::string& prefix,
                      const std::string& path, Model& model);

}  // namespace accumlab
