// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <cstdint>
#include <cstring>

namespace accumlab {

/// A c10 CPU allocator that wraps the one installed before it, the same for LibTorch 1.13 and
/// 2.x: a subclass says what an allocation is (allocateWrapped(), which asks inner()) and
/// which function frees its blocks. Installed once per process with install(), never
/// destroyed: tensors in static storage are freed after main() returns, and their deleter
/// still needs it.
class WrappedCpuAllocator : public c10::Allocator {
 public:
  explicit WrappedCpuAllocator(c10::DeleterFnPtr deleter) : deleter_(deleter) {}

  // No `override` on either allocate(): LibTorch 1.13 declares it const, 2.x non-const, and
  // whichever matches overrides it (the other is an unused overload).
  c10::DataPtr allocate(size_t n) const { return allocateWrapped(n); }
  c10::DataPtr allocate(size_t n) { return allocateWrapped(n); }

  c10::DeleterFnPtr raw_deleter() const override { return deleter_; }

  // Pure virtual since LibTorch 2.3 (storage copies); an unused extra member in 1.13.
  void copy_data(void* dest, const void* src, std::size_t count) const {
    std::memcpy(dest, src, count);
  }

  /// Makes this c10's CPU allocator at `priority` (above c10's default 0), wrapping the one
  /// there before; false when c10 kept another (one registered at a higher priority).
  bool install(uint8_t priority) {
    inner_ = c10::GetCPUAllocator();
    c10::SetCPUAllocator(this, priority);
    return c10::GetCPUAllocator() == this;
  }

  /// The allocator this one wraps (null before install()).
  c10::Allocator* inner() const { return inner_; }

 protected:
  /// An allocation of `n` bytes, its blocks freed through the deleter given to the
  /// constructor; its DataPtr has data == context, the raw_allocate contract that oneDNN's
  /// scratch allocations rely on.
  virtual c10::DataPtr allocateWrapped(size_t n) const = 0;

 private:
  c10::DeleterFnPtr deleter_;
  c10::Allocator* inner_ = nullptr;
};

}  // namespace accumlab
