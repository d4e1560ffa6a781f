// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include "data/dataset.h"
#include "models/model.h"

namespace accumlab {

struct EvalResult {
  double loss = 0;      ///< mean per-sample (text: per-token) loss on the validation split
  double accuracy = 0;  ///< of labels, or text's next bytes; NaN for regression
};

/// Evaluates on the whole validation split in eval mode without gradients; restores train
/// mode. Must run on the training thread (grad mode is thread-local).
EvalResult evaluate(Model& model, const Dataset& data, const torch::Device& device,
                    torch::Dtype dtype);

}  // namespace accumlab
