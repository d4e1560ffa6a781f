#pragma once

#include <torch/torch.h>

#include <string>

#include "models/model.h"

namespace accumlab {

/// Writes the model's parameters and buffers and the optimizer's state (momentum, Adam
/// moments) together to one file (a torch::serialize archive, as torch::save writes).
void saveCheckpoint(const std::string& path, Model& model, torch::optim::Optimizer& optimizer);

/// Restores a checkpoint of saveCheckpoint into a replica of the same model spec and an
/// optimizer of the same kind over its parameters. Throws InputError when the file is
/// missing, is no checkpoint, or belongs to a model of another layout.
void loadCheckpoint(const std::string& path, Model& model, torch::optim::Optimizer& optimizer);

}  // namespace accumlab
