// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/torchscript_check_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace accumlab {
namespace {

// Above c10's default (0) and the counting allocator (1): the recorder must see every block.
constexpr uint8_t kRecordingPriority = 2;

/// A block handed out while recording: what its wrapped allocator needs to free it.
struct RecordedBlock {
  void* context;
  c10::DeleterFnPtr deleter;
  size_t bytes;
};

/// The recorder's state. Never destroyed: tensors in static storage are freed after main()
/// returns, and their deleter still needs it.
struct RecordingState {
  std::mutex mutex;  ///< guards blocks
  std::unordered_map<const void*, RecordedBlock> blocks;
  c10::Allocator* inner = nullptr;
  std::atomic<bool> recording{false};
};

RecordingState& recordingState() {
  static RecordingState* s = new RecordingState;
  return *s;
}

void recordedDelete(void* data) {
  RecordingState& s = recordingState();
  RecordedBlock block{};
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.blocks.find(data);
    if (it == s.blocks.end()) {
      // Handed out while not recording, then freed through raw_deleter(): the inner one's.
      c10::DeleterFnPtr inner = s.inner->raw_deleter();
      if (inner != nullptr) inner(data);
      return;
    }
    block = it->second;
    s.blocks.erase(it);
  }
  block.deleter(block.context);
}

/// Wraps c10's CPU allocator; while recording, each block's DataPtr has data == context (the
/// raw_allocate contract that oneDNN's scratch allocations rely on) and the recorder's
/// deleter, which forgets the block and frees it through the wrapped allocator.
class RecordingAllocator final : public c10::Allocator {
 public:
  // No `override` on either allocate(): LibTorch 1.13 declares it const, 2.x non-const, and
  // whichever matches overrides it (the other is an unused overload).
  c10::DataPtr allocate(size_t n) const {
    RecordingState& s = recordingState();
    c10::DataPtr inner = s.inner->allocate(n);
    void* data = inner.get();
    if (!s.recording.load() || data == nullptr || inner.get_deleter() == nullptr) return inner;
    const c10::Device device = inner.device();
    const c10::DeleterFnPtr deleter = inner.get_deleter();
    void* context = inner.release_context();
    {
      const std::lock_guard<std::mutex> lock(s.mutex);
      s.blocks[data] = RecordedBlock{context, deleter, n};
    }
    return {data, data, &recordedDelete, device};
  }
  c10::DataPtr allocate(size_t n) {
    return static_cast<const RecordingAllocator*>(this)->allocate(n);
  }

  c10::DeleterFnPtr raw_deleter() const override { return &recordedDelete; }

  // Pure virtual since LibTorch 2.3 (storage copies); an unused extra member in 1.13.
  void copy_data(void* dest, const void* src, std::size_t count) const {
    std::memcpy(dest, src, count);
  }
};

void installOnce() {
  static const bool installed = [] {
    RecordingState& s = recordingState();
    static RecordingAllocator* recorder = new RecordingAllocator;
    s.inner = c10::GetCPUAllocator();
    c10::SetCPUAllocator(recorder, kRecordingPriority);
    return c10::GetCPUAllocator() == recorder;
  }();
  if (!installed) throw std::logic_error("AllocationSizes: c10's CPU allocator is not replaceable");
}

}  // namespace

AllocationSizes::AllocationSizes() {
  installOnce();
  if (recordingState().recording.exchange(true)) {
    throw std::logic_error("AllocationSizes: only one may record at a time");
  }
}

AllocationSizes::~AllocationSizes() { recordingState().recording.store(false); }

std::optional<size_t> AllocationSizes::blockBytes(const void* data) const {
  RecordingState& s = recordingState();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.blocks.find(data);
  if (it == s.blocks.end()) return std::nullopt;
  return it->second.bytes;
}

}  // namespace accumlab
