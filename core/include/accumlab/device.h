#pragma once

#include <string>

namespace accumlab {

/// True when LibTorch was built with CUDA and a device is present.
bool cudaAvailable();
/// Number of CUDA devices (0 without CUDA).
int cudaDeviceCount();
/// Sets the CPU thread defaults (torch intra-op and OpenBLAS); 0 picks the documented default.
void configureThreads(int threads);

}  // namespace accumlab
