// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/cuda_allocator.h"

// ACCUMLAB_WITH_CUDA is set by CMake when LibTorch was built with CUDA (Debian's is not, but
// ships the CUDA headers anyway, so __has_include cannot tell).
#ifdef ACCUMLAB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace accumlab {

#ifdef ACCUMLAB_WITH_CUDA

namespace {

namespace cuda_alloc = c10::cuda::CUDACachingAllocator;

// Index of StatType::AGGREGATE (small and large pools together) in every StatArray. The
// enum is c10::cuda::CUDACachingAllocator::StatType in 1.13; LibTorch 2.x moved it into
// the device-generic allocator (c10, then c10::CachingAllocator), where only DeviceStats is
// re-exported to the CUDA namespace. Its value has stayed 0 throughout, so it is not named.
constexpr size_t kAggregate = 0;

// getDeviceStats, resetPeakStats and setMemoryFraction take an int device in 1.13 and a
// c10::DeviceIndex in 2.x; emptyCache() gained a defaulted memory-pool argument in 2.x; the
// stats type moved with StatType (hence auto). The calls below compile against both
// without a version test.
auto statsOf(const c10::Device& device) { return cuda_alloc::getDeviceStats(device.index()); }

}  // namespace

bool cudaAllocatorBuilt() { return true; }

int64_t cudaAllocatedBytes(const c10::Device& device) {
  return statsOf(device).allocated_bytes[kAggregate].current;
}

int64_t cudaPeakAllocatedBytes(const c10::Device& device) {
  return statsOf(device).allocated_bytes[kAggregate].peak;
}

void resetCudaPeak(const c10::Device& device) { cuda_alloc::resetPeakStats(device.index()); }

void releaseCudaCache() { cuda_alloc::emptyCache(); }

int64_t cudaTotalMemory(const c10::Device& device) {
  return static_cast<int64_t>(at::cuda::getDeviceProperties(device.index())->totalGlobalMem);
}

void setCudaMemoryFraction(const c10::Device& device, double fraction) {
  cuda_alloc::setMemoryFraction(fraction, device.index());
}

#else

bool cudaAllocatorBuilt() { return false; }
int64_t cudaAllocatedBytes(const c10::Device&) { return -1; }
int64_t cudaPeakAllocatedBytes(const c10::Device&) { return -1; }
void resetCudaPeak(const c10::Device&) {}
void releaseCudaCache() {}
int64_t cudaTotalMemory(const c10::Device&) { return -1; }
void setCudaMemoryFraction(const c10::Device&, double) {}

#endif

}  // namespace accumlab
