// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <vector>

namespace accumlab {

/// Max over parameter tensors of max|a − b| / max|b|: how far two replicas have drifted,
/// relative to each tensor's scale (robust to individual weights near zero).
double maxRelativeWeightDifference(const std::vector<torch::Tensor>& a,
                                   const std::vector<torch::Tensor>& b);

}  // namespace accumlab
