// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include "data/dataset.h"

namespace accumlab {

/// The training loss, in one place (docs/accumulation.md, docs/sequences.md). Per sample:
/// cross-entropy, or the squared error summed over the targets. For text, per target token:
/// cross-entropy of the next byte, padding left out; a sequence's loss is the sum over its
/// tokens under --token-loss tokens, their mean under --token-loss sequences. Divided by the
/// batch's loss terms (Dataset::trainWeight) the sum is the batch's mean loss.

/// Σ of the per-sample losses of `output` against `target` (a 0-dim tensor, the output's dtype).
torch::Tensor summedLoss(const Dataset& data, const torch::Tensor& output,
                         const torch::Tensor& target);

/// Each sample's loss, [batch]; they add up to summedLoss.
torch::Tensor sampleLosses(const Dataset& data, const torch::Tensor& output,
                           const torch::Tensor& target);

/// Correct predictions (int64, 0-dim): samples whose top logit is the label, or for text
/// target tokens whose top logit is the next byte.
torch::Tensor correctPredictions(const Dataset& data, const torch::Tensor& output,
                                 const torch::Tensor& target);

/// What an accuracy counts in a batch of `target`: samples, or text's target tokens.
double predictionCount(const Dataset& data, const torch::Tensor& target);

}  // namespace accumlab
