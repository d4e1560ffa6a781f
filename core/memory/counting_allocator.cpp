// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/counting_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "accumlab/format_bytes.h"
#include "accumlab/memory_model.h"

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
  c10::Allocator* inner = nullptr;
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
/// lock, no table: the allocator sits on every tensor's path). Its DataPtrs have data ==
/// context, the raw_allocate contract that oneDNN's scratch allocations rely on.
class CountingAllocator final : public c10::Allocator {
 public:
  // No `override` on either allocate(): LibTorch 1.13 declares it const, 2.x non-const, and
  // whichever matches overrides it (the other is an unused overload).
  c10::DataPtr allocate(size_t n) const {
    State& s = state();
    checkLimit(t_charged.get(), static_cast<int64_t>(n));
    c10::DataPtr inner = s.inner->allocate(n + kHeaderBytes);
    char* base = static_cast<char*>(inner.get());
    if (base == nullptr || inner.get_deleter() == nullptr) return inner;  // nothing to free
    const c10::Device device = inner.device();
    const c10::DeleterFnPtr deleter = inner.get_deleter();
    void* context = inner.release_context();
    const int64_t bytes = static_cast<int64_t>(n);
    auto* h = new (base) Header{context, deleter, bytes, t_charged};
    if (h->ledger) h->ledger->add(bytes);
    s.process.add(bytes);
    void* data = base + kHeaderBytes;
    return {data, data, &countingDelete, device};
  }
  c10::DataPtr allocate(size_t n) {
    return static_cast<const CountingAllocator*>(this)->allocate(n);
  }

  c10::DeleterFnPtr raw_deleter() const override { return &countingDelete; }

  // Pure virtual since LibTorch 2.3 (storage copies); an unused extra member in 1.13.
  void copy_data(void* dest, const void* src, std::size_t count) const {
    std::memcpy(dest, src, count);
  }
};

}  // namespace

bool installCountingAllocator() {
  static const bool ok = [] {
    State& s = state();
    if (s.disabled) return false;
    static CountingAllocator* counting = new CountingAllocator;
    s.inner = c10::GetCPUAllocator();
    c10::SetCPUAllocator(counting, kCountingPriority);
    const bool installed = c10::GetCPUAllocator() == counting;
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
