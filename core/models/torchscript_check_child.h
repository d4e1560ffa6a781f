// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

#include "accumlab/torchscript_check.h"

namespace accumlab {

/// What the model check's child does, in this process: loads `path` with LibTorch's loader,
/// proves that every parameter, buffer, tensor attribute and tensor constant lies inside the
/// record it was read from (its storage offset, sizes, strides and element size against the
/// bytes the record holds), makes one replica as the app does, and runs two forward passes of
/// one `sample` (evaluation mode, the same seed) that must give the same bits. Throws
/// InputError with one sentence naming the file and, for a tensor, the tensor. Also the
/// TorchScript fuzzer's target.
void verifyTorchScriptHere(const std::string& path, const ModelSample& sample);

/// The sample of sampleArgument's text ("float:1x8x8", "tokens:40"); nullopt when it is not
/// such a text.
std::optional<ModelSample> parseSampleArgument(const std::string& text);

}  // namespace accumlab
