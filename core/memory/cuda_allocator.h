// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <c10/core/Device.h>

#include <cstdint>

namespace accumlab {

// The CUDA caching allocator, asked the same way on LibTorch 1.13 and 2.x. Without CUDA in
// the LibTorch this was built against, every query answers -1 and every setter does nothing.
// Callable from any thread: the allocator guards its own state.

/// Whether this build can ask a CUDA caching allocator (LibTorch was built with CUDA).
bool cudaAllocatorBuilt();
/// Bytes of tensors allocated on `device` now (-1 without CUDA).
int64_t cudaAllocatedBytes(const c10::Device& device);
/// The most bytes allocated on `device` at once since the last resetCudaPeak() (-1 without
/// CUDA).
int64_t cudaPeakAllocatedBytes(const c10::Device& device);
/// Starts a new peak on `device` from the bytes allocated now.
void resetCudaPeak(const c10::Device& device);
/// Gives the allocator's cached, unused blocks back to the driver (after an out-of-memory).
void releaseCudaCache();
/// The device's memory in bytes, as the driver reports it (-1 without CUDA).
int64_t cudaTotalMemory(const c10::Device& device);
/// Caps what the allocator may reserve on `device` at `fraction` of its memory; past it an
/// allocation throws c10::OutOfMemoryError as a full card does. 1.0 lifts the cap.
void setCudaMemoryFraction(const c10::Device& device, double fraction);

}  // namespace accumlab
