// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include "data/dataset.h"
#include "models/model.h"
#include "train/arm_stepper.h"

namespace accumlab {

struct EvalResult {
  double loss = 0;      ///< mean per-sample (text: per-token) loss on the validation split
  double accuracy = 0;  ///< of labels, or text's next bytes; NaN for regression
};

/// Evaluates on the whole validation split in eval mode without gradients; restores train
/// mode. Must run on the training thread (grad mode is thread-local).
EvalResult evaluate(Model& model, const Dataset& data, const torch::Device& device,
                    torch::Dtype dtype);

/// The arm's evaluation where it stands, as the sink hears it: loss and accuracy on the
/// validation split, and for text a line the model writes from a seed of `seed` and the arm's
/// position, the same for every arm (their lines differ by their weights alone).
EvalRecord evaluationRecord(ArmStepper& stepper, const Dataset& data, torch::Device device,
                            torch::Dtype dtype, uint64_t seed, double wall_ms);

}  // namespace accumlab
