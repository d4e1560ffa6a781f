// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <string>

namespace accumlab {

/// Resolves auto, cpu, cuda, cuda:N; throws InputError when the device is not available.
torch::Device resolveDevice(const std::string& spec);
/// e.g. "cpu (1 thread)" or "cuda:0".
std::string describeDevice(const torch::Device& device);
/// Makes float32 on CUDA full IEEE float32 for the whole process: no TF32 in cuBLAS matmuls
/// or cuDNN convolutions (LibTorch allows it in convolutions by default on Ampere and later).
void useFullFloat32OnCuda();

}  // namespace accumlab
