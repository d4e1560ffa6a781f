// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace accumlab {

/// Current and peak bytes of the CPU tensors charged to one owner (an arm, or the whole
/// process). Updated by the counting allocator from whichever thread allocates or frees;
/// every member is an atomic, so any thread may read it.
class TensorLedger {
 public:
  /// Bytes of the owner's tensors alive now.
  int64_t currentBytes() const { return current_.load(std::memory_order_relaxed); }
  /// The most bytes alive at once since the last resetPeak() (or since creation).
  int64_t peakBytes() const { return peak_.load(std::memory_order_relaxed); }
  /// Starts a new peak from the bytes alive now.
  void resetPeak() { peak_.store(currentBytes(), std::memory_order_relaxed); }

  /// Bytes the owner may hold at once; 0 = no limit. The counting allocator refuses an
  /// allocation that would take the owner past it with c10::OutOfMemoryError, as a device
  /// that runs out of memory would.
  int64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void setLimit(int64_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }

  /// Counts an allocation of `bytes` (called by the allocator).
  void add(int64_t bytes);
  /// Counts a free of `bytes` (called by the allocator).
  void remove(int64_t bytes) { current_.fetch_sub(bytes, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> current_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> limit_{0};
};

/// Installs, once per process, a CPU allocator that wraps c10's current one and counts the
/// bytes of every tensor storage it hands out (c10::SetCPUAllocator). Tensors allocated
/// before the call are not counted, nor is memory that libraries allocate behind c10 (the
/// caches of BLAS and oneDNN, the Python-free malloc of LibTorch's internals). Returns
/// whether the counting allocator is c10's CPU allocator now. Thread-safe.
bool installCountingAllocator();
/// Whether installCountingAllocator() has succeeded in this process.
bool countingAllocatorInstalled();
/// Keeps installCountingAllocator() from installing in this process, so tensor memory goes
/// unmeasured (peaks read -1). For benchmarks that measure what the counting costs; call it
/// before the first Trainer runs.
void disableCountingAllocator();
/// Every CPU tensor allocated through the counting allocator, whoever is charged.
TensorLedger& processTensorLedger();

/// While alive, CPU tensors allocated on this thread are charged to `ledger` (as well as to
/// the process ledger) until they are freed, whichever thread frees them. Guards nest: the
/// previous ledger is charged again when this one ends. Other threads' allocations meanwhile
/// are not charged to it (intra-op workers rarely allocate tensors). Create and end a guard
/// on the same thread.
class TensorCharge {
 public:
  explicit TensorCharge(std::shared_ptr<TensorLedger> ledger);
  ~TensorCharge();
  TensorCharge(const TensorCharge&) = delete;
  TensorCharge& operator=(const TensorCharge&) = delete;

 private:
  std::shared_ptr<TensorLedger> previous_;
};

}  // namespace accumlab
