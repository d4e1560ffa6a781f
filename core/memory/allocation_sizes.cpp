// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/allocation_sizes.h"

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "memory/wrapped_cpu_allocator.h"

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
  std::atomic<bool> recording{false};
};

RecordingState& recordingState() {
  static RecordingState* s = new RecordingState;
  return *s;
}

void recordedDelete(void* data);

/// Wraps c10's CPU allocator; while recording, each block's DataPtr has the recorder's
/// deleter, which forgets the block and frees it through the wrapped allocator.
class RecordingAllocator final : public WrappedCpuAllocator {
 public:
  RecordingAllocator() : WrappedCpuAllocator(&recordedDelete) {}

 protected:
  c10::DataPtr allocateWrapped(size_t n) const override {
    RecordingState& s = recordingState();
    c10::DataPtr block = inner()->allocate(n);
    void* data = block.get();
    if (!s.recording.load() || data == nullptr || block.get_deleter() == nullptr) return block;
    const c10::Device device = block.device();
    const c10::DeleterFnPtr deleter = block.get_deleter();
    void* context = block.release_context();
    {
      const std::lock_guard<std::mutex> lock(s.mutex);
      s.blocks[data] = RecordedBlock{context, deleter, n};
    }
    return {data, data, &recordedDelete, device};
  }
};

RecordingAllocator& recorder() {
  static RecordingAllocator* r = new RecordingAllocator;
  return *r;
}

void recordedDelete(void* data) {
  RecordingState& s = recordingState();
  RecordedBlock block{};
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.blocks.find(data);
    if (it == s.blocks.end()) {
      // Handed out while not recording, then freed through raw_deleter(): the inner one's.
      c10::DeleterFnPtr inner = recorder().inner()->raw_deleter();
      if (inner != nullptr) inner(data);
      return;
    }
    block = it->second;
    s.blocks.erase(it);
  }
  block.deleter(block.context);
}

void installOnce() {
  static const bool installed = recorder().install(kRecordingPriority);
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
