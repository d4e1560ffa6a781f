#pragma once

#include <torch/torch.h>

#include <string>

namespace accumlab {

/// Resolves auto, cpu, cuda, cuda:N; throws InputError when the device is not available.
torch::Device resolveDevice(const std::string& spec);
/// e.g. "cpu (1 thread)" or "cuda:0".
std::string describeDevice(const torch::Device& device);

}  // namespace accumlab
