// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace accumlab {

/// Memory in use for training on `device`: the bytes the CUDA caching allocator has handed
/// out on CUDA, the process's resident set size on CPU.
int64_t memoryInUse(const torch::Device& device);
/// Peak memory: the CUDA allocator peak, or the process's peak resident set size (VmHWM).
int64_t peakMemory(const torch::Device& device);

}  // namespace accumlab
