// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>

namespace accumlab {

/// While alive, remembers the size of every block that c10's CPU allocator hands out in this
/// process, until the block is freed. The model check needs it: LibTorch's loader allocates
/// each storage's block with the size of its record in the archive, but gives the storage the
/// size that the archive's pickle claims, so a truncated record makes a storage that says it
/// holds more than its block (and a clone or a forward then reads past the block).
/// Installs, once per process, a recording CPU allocator that wraps c10's (above the counting
/// allocator's priority, which it then keeps out): only for the check's process and the
/// fuzzer. One at a time; any thread may allocate while it lives.
class AllocationSizes {
 public:
  AllocationSizes();
  ~AllocationSizes();
  AllocationSizes(const AllocationSizes&) = delete;
  AllocationSizes& operator=(const AllocationSizes&) = delete;

  /// The bytes of the block that starts at `data`, when it was allocated while this lives
  /// and is not freed yet; nullopt for any other pointer.
  std::optional<size_t> blockBytes(const void* data) const;
};

}  // namespace accumlab
