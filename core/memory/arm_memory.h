// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <exception>
#include <memory>

#include "memory/counting_allocator.h"

namespace accumlab {

/// Peak tensor memory of one arm's windows (docs/measurements.md).
/// CPU: the bytes of this arm's own tensors — its parameters, gradients, optimizer state,
/// batches and activations — counted by the counting allocator while the arm is charged
/// (charge()); the dataset and the other arms' tensors are not this arm's.
/// CUDA: the caching allocator's peak of allocated bytes on the device during the window
/// (every tensor on the device, so the other arms' weights too).
/// A memory budget (bytes, 0 = none) limits the arm's CPU tensors while it is charged and
/// not paused: an allocation past it throws c10::OutOfMemoryError. On CUDA the device's
/// memory is the limit. Used on the training thread only.
class ArmMemory {
 public:
  explicit ArmMemory(c10::Device device, int64_t budget = 0);

  /// CPU tensors allocated while the returned guard lives are charged to this arm.
  std::unique_ptr<TensorCharge> charge() const;
  /// Starts a window: its peak starts from the bytes alive now.
  void beginWindow();
  /// Leaves what happens until resume() out of the window's peak and out of the budget (a
  /// measurement such as the gradient check, not training).
  void pause();
  void resume();
  /// Ends the window: its peak tensor bytes, or -1 when nothing measures them (on CPU when
  /// the counting allocator could not be installed).
  int64_t endWindow();
  /// Bytes of this arm's CPU tensors alive now (0 on CUDA).
  int64_t currentBytes() const { return ledger_->currentBytes(); }
  int64_t budget() const { return budget_; }
  /// Whether a training step that runs out of memory can be retried in smaller pieces: a CPU
  /// budget is enforced, or the device is a GPU (whose allocator fails cleanly).
  bool recoverable() const;
  /// Gives back what a failed allocation left cached (CUDA: the caching allocator's free
  /// blocks), before a retry.
  void afterOutOfMemory();

 private:
  int64_t peakSoFar() const;

  c10::Device device_;
  int64_t budget_;
  std::shared_ptr<TensorLedger> ledger_;
  int64_t paused_peak_ = 0;  ///< the window's peak before the last pause()
};

/// Whether `e` reports memory running out: c10::OutOfMemoryError (a GPU, or a CPU budget),
/// std::bad_alloc, or an error whose text says "out of memory".
bool isOutOfMemory(const std::exception& e);

}  // namespace accumlab
