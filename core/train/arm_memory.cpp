#include "train/arm_memory.h"

#include <algorithm>

// ACCUMLAB_WITH_CUDA is set by CMake when LibTorch was built with CUDA (see memory_probe.cpp).
#ifdef ACCUMLAB_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace accumlab {

namespace {

#ifdef ACCUMLAB_WITH_CUDA
namespace cuda_alloc = c10::cuda::CUDACachingAllocator;

int64_t cudaAllocatedPeak(const c10::Device& device) {
  const auto stats = cuda_alloc::getDeviceStats(device.index());
  return stats.allocated_bytes[static_cast<size_t>(cuda_alloc::StatType::AGGREGATE)].peak;
}
#endif

}  // namespace

ArmMemory::ArmMemory(c10::Device device)
    : device_(device), ledger_(std::make_shared<TensorLedger>()) {
  installCountingAllocator();
}

std::unique_ptr<TensorCharge> ArmMemory::charge() const {
  return std::make_unique<TensorCharge>(ledger_);
}

int64_t ArmMemory::peakSoFar() const {
  if (device_.is_cuda()) {
#ifdef ACCUMLAB_WITH_CUDA
    return cudaAllocatedPeak(device_);
#else
    return -1;
#endif
  }
  return countingAllocatorInstalled() ? ledger_->peakBytes() : -1;
}

void ArmMemory::resume() {
  if (device_.is_cuda()) {
#ifdef ACCUMLAB_WITH_CUDA
    cuda_alloc::resetPeakStats(device_.index());
#endif
  } else {
    ledger_->resetPeak();
  }
}

void ArmMemory::beginWindow() {
  paused_peak_ = -1;
  resume();
}

void ArmMemory::pause() { paused_peak_ = std::max(paused_peak_, peakSoFar()); }

int64_t ArmMemory::endWindow() { return std::max(paused_peak_, peakSoFar()); }

}  // namespace accumlab
