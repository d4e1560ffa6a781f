// SPDX-License-Identifier: GPL-3.0-or-later
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

/// Makes the CPU treat float values too small for their exponent (subnormals: below 1.2e-38
/// in float32) as zero, on the calling thread and on the threads it starts from then on.
/// A confident classifier's softmax underflows into that range, and every multiply with such
/// a value takes a slow path: on the MLP of the default experiment the no-accum arm trained
/// 3× slower by its last epoch (docs/performance.md). configureThreads calls it.
void flushDenormals();

}  // namespace accumlab
