// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/counting_allocator.h"

#include <c10/util/Exception.h>

#include <new>
#include <string>
#include <utility>

#include "accumlab/format_bytes.h"
#include "accumlab/memory_model.h"
#include "memory/wrapped_cpu_allocator.h"

namespace accumlab {

void TensorLedger::add(int64_t bytes) {
  const int64_t now = current_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

namespace {

// Above c10's default allocator (priority 0), so that a later default registration cannot
// silently take the place of the counting one.
constexpr uint8_t kCountingPriority = 1;

/// What the counting allocator keeps in front of each allocation's data.
struct Header {
  void* context;                         ///< the wrapped allocator's context
  c10::DeleterFnPtr deleter;             ///< and its deleter
  int64_t bytes;                         ///< the bytes asked for
  std::shared_ptr<TensorLedger> ledger;  ///< charged besides the process ledger, or null
};
// The header's room: c10 aligns CPU data to 64 bytes, and the data after it stays aligned.
constexpr size_t kHeaderBytes = 64;
static_assert(sizeof(Header) <= kHeaderBytes, "the header must fit in front of the data");

/// The counting allocator's state. Never destroyed: tensors in static storage are freed
/// after main() returns, and their deleter still needs it.
struct State {
  TensorLedger process;
  std::atomic<bool> installed{false};
  std::atomic<bool> disabled{false};
};

State& state() {
  static State* s = new State;
  return *s;
}

// The ledger of this thread's innermost TensorCharge. Per thread, so that two trainers in
// one process (a run and the GUI's memory probe) do not charge each other. Intra-op worker
// threads rarely allocate tensors; what they do allocate counts for the process only.
thread_local std::shared_ptr<TensorLedger> t_charged;

std::string mib(int64_t bytes) { return formatBytes(static_cast<double>(bytes)); }

/// Refuses an allocation that would take the charged ledger past its limit, before anything
/// is allocated, as a device out of memory would.
void checkLimit(const TensorLedger* ledger, int64_t bytes) {
  if (ledger == nullptr) return;
  const int64_t limit = ledger->limit();
  if (limit <= 0 || ledger->currentBytes() + bytes <= limit) return;
  C10_THROW_ERROR(OutOfMemoryError,
                  "out of memory: " + mib(bytes) + " more would take the arm's tensors from " +
                      mib(ledger->currentBytes()) + " past the memory budget of " + mib(limit));
}

Header* headerOf(void* data) {
  return reinterpret_cast<Header*>(static_cast<char*>(data) - kHeaderBytes);
}

void countingDelete(void* data) {
  Header* h = headerOf(data);
  const Header a = std::move(*h);
  h->~Header();
  state().process.remove(a.bytes);
  if (a.ledger) a.ledger->remove(a.bytes);
  a.deleter(a.context);
}

/// Wraps c10's CPU allocator. Each allocation carries a header in front of its data (no
/// lock, no table: the allocator sits on every tensor's path).
class CountingAllocator final : public WrappedCpuAllocator {
 public:
  CountingAllocator() : WrappedCpuAllocator(&countingDelete) {}

 protected:
  c10::DataPtr allocateWrapped(size_t n) const override {
    checkLimit(t_charged.get(), static_cast<int64_t>(n));
    c10::DataPtr block = inner()->allocate(n + kHeaderBytes);
    char* base = static_cast<char*>(block.get());
    if (base == nullptr || block.get_deleter() == nullptr) return block;  // nothing to free
    const c10::Device device = block.device();
    const c10::DeleterFnPtr deleter = block.get_deleter();
    void* context = block.release_context();
    const int64_t bytes = static_cast<int64_t>(n);
    auto* h = new (base) Header{context, deleter, bytes, t_charged};
    if (h->ledger) h->ledger->add(bytes);
    state().process.add(bytes);
    void* data = base + kHeaderBytes;
    return {data, data, &countingDelete, device};
  }
};

}  // namespace

bool installCountingAllocator() {
  static const bool ok = [] {
    State& s = state();
    if (s.disabled) return false;
    static CountingAllocator* counting = new CountingAllocator;
    const bool installed = counting->install(kCountingPriority);
    s.installed = installed;
    return installed;
  }();
  return ok;
}

bool countingAllocatorInstalled() { return state().installed.load(); }

void disableCountingAllocator() { state().disabled = true; }

TensorLedger& processTensorLedger() { return state().process; }

TensorCharge::TensorCharge(std::shared_ptr<TensorLedger> ledger)
    : previous_(std::exchange(t_charged, std::move(ledger))) {}

TensorCharge::~TensorCharge() { t_charged = std::move(previous_); }

}  // namespace accumlab
