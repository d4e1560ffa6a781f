#include "train/arm_memory.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <new>
#include <string>

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

ArmMemory::ArmMemory(c10::Device device, int64_t budget)
    : device_(device), budget_(budget), ledger_(std::make_shared<TensorLedger>()) {
  installCountingAllocator();  // the budget applies from the first window (beginWindow())
}

bool ArmMemory::recoverable() const {
  return device_.is_cuda() || (budget_ > 0 && countingAllocatorInstalled());
}

void ArmMemory::afterOutOfMemory() {
#ifdef ACCUMLAB_WITH_CUDA
  if (device_.is_cuda()) cuda_alloc::emptyCache();
#endif
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
  if (!device_.is_cuda()) ledger_->setLimit(budget_);
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

void ArmMemory::pause() {
  paused_peak_ = std::max(paused_peak_, peakSoFar());
  ledger_->setLimit(0);
}

int64_t ArmMemory::endWindow() { return std::max(paused_peak_, peakSoFar()); }

bool isOutOfMemory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr) return true;
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return true;
  return std::string(e.what()).find("out of memory") != std::string::npos;
}

}  // namespace accumlab
