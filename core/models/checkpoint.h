#pragma once

#include <torch/torch.h>

#include <string>

#include "models/model.h"

namespace accumlab {

/// Writes the model's parameters and buffers and the optimizer's state (momentum, Adam
/// moments) together to one file (a torch::serialize archive, as torch::save writes).
void saveCheckpoint(const std::string& path, Model& model, torch::optim::Optimizer& optimizer);

/// Writes the model's tensors and the optimizer's state into `archive`, under keys that start
/// with `prefix` (empty: the keys of saveCheckpoint).
void writeModelState(torch::serialize::OutputArchive& archive, const std::string& prefix,
                     Model& model, torch::optim::Optimizer& optimizer);
/// Reads what writeModelState wrote; throws InputError naming `path` when the tensors belong
/// to a model of another layout.
void readModelState(torch::serialize::InputArchive& archive, const std::string& prefix,
                    const std::string& path, Model& model, torch::optim::Optimizer& optimizer);

/// The optimizer's state as the bytes of a torch archive, and back: loading from bytes
/// allocates the state tensors at that moment (so a memory ledger active then counts them).
std::string optimizerStateBytes(torch::optim::Optimizer& optimizer);
void loadOptimizerStateBytes(torch::optim::Optimizer& optimizer, const std::string& bytes,
                             const std::string& path);
/// The model's parameters and buffers only, under keys that start with `prefix`.
void writeModelTensors(torch::serialize::OutputArchive& archive, const std::string& prefix, Model& model);
void readModelTensors(torch::serialize::InputArchive& archive, const std::string& prefix,
                      const std::string& path, Model& model);

/// Restores a checkpoint of saveCheckpoint into a replica of the same model spec and an
/// optimizer of the same kind over its parameters. Throws InputError when the file is
/// missing, is no checkpoint, or belongs to a model of another layout.
void loadCheckpoint(const std::string& path, Model& model, torch::optim::Optimizer& optimizer);

}  // namespace accumlab
