// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "data/dataset.h"
#include "models/model.h"

namespace accumlab {

/// The most bytes a sampled line holds.
inline constexpr int64_t kTextSampleBytes = 80;

/// One line of text the model writes (docs/sequences.md): from kTextStart, each next byte
/// drawn from the model's softmax at temperature 0.8 by a generator of its own seeded with
/// `seed` (so arms sampled with one seed draw the same random numbers, and training's are
/// untouched), until kTextEnd, kTextSampleBytes bytes or an input of `context` tokens (the
/// longest the data holds: a transformer's positions end there). Line breaks come out as " / ", and
/// bytes that do not make UTF-8 text as '?'. Eval mode, no gradients; restores train mode.
/// Runs on the training thread.
std::string sampleTextLine(Model& model, const torch::Device& device, int64_t context,
                           uint64_t seed);

}  // namespace accumlab
