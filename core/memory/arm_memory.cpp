// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/arm_memory.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <new>
#include <string>

#include "memory/cuda_allocator.h"

namespace accumlab {

ArmMemory::ArmMemory(c10::Device device, int64_t budget)
    : device_(device), budget_(budget), ledger_(std::make_shared<TensorLedger>()) {
  installCountingAllocator();  // the budget applies from the first window (beginWindow())
}

bool ArmMemory::recoverable() const {
  return device_.is_cuda() || (budget_ > 0 && countingAllocatorInstalled());
}

void ArmMemory::afterOutOfMemory() {
  if (device_.is_cuda()) releaseCudaCache();
}

std::unique_ptr<TensorCharge> ArmMemory::charge() const {
  return std::make_unique<TensorCharge>(ledger_);
}

int64_t ArmMemory::peakSoFar() const {
  if (device_.is_cuda()) return cudaPeakAllocatedBytes(device_);
  return countingAllocatorInstalled() ? ledger_->peakBytes() : -1;
}

void ArmMemory::resume() {
  if (!device_.is_cuda()) ledger_->setLimit(budget_);
  if (device_.is_cuda()) {
    resetCudaPeak(device_);
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
