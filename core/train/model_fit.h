// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "data/dataset.h"
#include "models/model.h"

namespace accumlab {

/// A 1-sample dry run of `model` on `data`'s shape: throws InputError with one sentence when
/// the model cannot take the samples or its output does not fit the task (a logit per class,
/// a value per target, or a logit per byte value at every position of a text sequence).
void checkModelFits(Model& model, const Dataset& data, torch::Dtype dtype, torch::Device device);

/// What the model's nature means for comparing the arms, said once at the start so that a gap
/// between accum and big-batch is not read as a failure of accumulation: normalising over the
/// batch (BatchNorm) and random layers (dropout). `paired`: accum and big-batch both train.
std::vector<std::string> modelCaveats(Model& model, bool paired);

}  // namespace accumlab
