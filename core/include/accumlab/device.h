#pragma once

#include <string>

namespace accumlab {

/// True when LibTorch was built with CUDA and a device is present.
bool cudaAvailable();
/// Number of CUDA devices (0 without CUDA).
int cudaDeviceCount();
/// Sets the process's CPU thread counts (torch intra-op and OpenBLAS); 0 picks the documented
/// default. They are process-wide: set once, and again only when a run asks for another
/// count (re-setting torch's pool after parallel work has started only warns). Call it from
/// one thread at a time.
void configureThreads(int threads);

}  // namespace accumlab
