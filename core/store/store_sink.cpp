// SPDX-License-Identifier: GPL-3.0-or-later
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "store/store_writer.h"

namespace accumlab {

namespace {

/// The longest a handed-over record waits before it is committed.
constexpr std::chrono::milliseconds kCommitInterval{250};
/// An idle writer still commits a heartbeat this often, so other hosts see the run alive.
constexpr std::chrono::seconds kHeartbeatInterval{30};
/// The writer thread's nice value (Linux schedules threads individually).
constexpr int kWriterNice = 10;

}  // namespace

struct StoreSink::Impl {
  std::string path;
  StoreOptions options;
  std::thread writer;

  // Everything below is guarded by `mutex`: the training thread appends to `pending`, the
  // writer thread swaps it out.
  mutable std::mutex mutex;
  std::condition_variable wake;       ///< the writer waits on it for urgent work or stop
  std::condition_variable committed;  ///< callers of waitFor() wait on it
  store::WriteBatch pending;
  uint64_t handed = 0;  ///< how many hand-overs so far
  uint64_t done = 0;    ///< hand-overs the writer has finished (committed or dropped)
  bool urgent = false;  ///< commit now rather than at the next interval
  bool stopping = false;
  bool opened = false;
  std::exception_ptr error;  ///< the writer's first failure; later batches are dropped
  int64_t experiment_id = 0;
  std::vector<StoredRun> runs;
  int64_t resume_experiment = 0;  ///< set by resumeExperiment()

  /// Appends under the lock; returns the hand-over's number.
  template <typename Fn>
  uint64_t handOver(Fn&& add, bool now) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!error) add(pending);
    ++handed;
    if (now) {
      urgent = true;
      wake.notify_one();
    }
    return handed;
  }

  /// The number of the latest hand-over.
  uint64_t handedSoFar() const {
    std::lock_guard<std::mutex> lock(mutex);
    return handed;
  }

  /// Blocks until hand-over `n` is done.
  void waitFor(uint64_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    committed.wait(lock, [&] { return done >= n; });
  }

  void run();
};

void StoreSink::Impl::run() {
  // On a machine with few cores the writer competes with the training thread: give way to
  // it. The writer needs a few percent of a core, which a nice of 10 still leaves it.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kWriterNice);
  std::unique_ptr<store::StoreWriter> w;
  try {
    w = std::make_unique<store::StoreWriter>(path, options);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex);
    error = std::current_exception();
    opened = true;
    committed.notify_all();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    opened = true;
  }
  committed.notify_all();

  using Clock = std::chrono::steady_clock;
  auto next_commit = Clock::now() + kCommitInterval;
  auto last_write = Clock::now();
  for (;;) {
    store::WriteBatch batch;
    uint64_t upto = 0;
    bool stop = false;
    bool failed = false;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait_until(lock, next_commit, [&] { return urgent || stopping; });
      std::swap(batch, pending);
      upto = handed;
      urgent = false;
      stop = stopping;
      failed = error != nullptr;
    }
    next_commit = Clock::now() + kCommitInterval;
    std::exception_ptr failure;
    if (!failed && (!batch.empty() || Clock::now() - last_write > kHeartbeatInterval)) {
      try {
        w->write(batch);
        last_write = Clock::now();
      } catch (...) {
        failure = std::current_exception();
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (failure && !error) {
        error = failure;
        pending = {};
      }
      experiment_id = w->experimentId();
      runs = w->runs();
      done = upto;
      // Hand the emptied step buffer back, so the next batch appends without regrowing.
      std::vector<StepRecord>& used = batch.records.steps;
      used.clear();
      if (pending.records.steps.empty() && pending.records.steps.capacity() < used.capacity()) {
        std::swap(pending.records.steps, used);
      }
    }
    committed.notify_all();
    if (stop) break;
  }

  // Arms that never reported an end (the trainer threw, or storing failed) must not stay
  // `running` while this process lives on (the GUI): close them as failed.
  std::string why = "the run ended without a summary";
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        why = std::string("storing stopped: ") + e.what();
      }
    }
  }
  try {
    w->abandonRunning(why);
  } catch (...) {
    // The file is unwritable; the next open marks these runs interrupted instead.
  }
}

StoreSink::StoreSink(const std::string& path, const StoreOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->options = options;
  impl_->writer = std::thread([this] { impl_->run(); });
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(impl_->mutex);
    impl_->committed.wait(lock, [&] { return impl_->opened; });
    error = impl_->error;
  }
  if (error) {
    impl_->writer.join();
    std::rethrow_exception(error);
  }
}

StoreSink::~StoreSink() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_one();
  if (impl_->writer.joinable()) impl_->writer.join();
}

void StoreSink::onRunStarted(const RunInfo& info) {
  // The one wait on disk: before the first step, so the ids exist and a locked or
  // unwritable file stops the run before any training is lost.
  impl_->waitFor(impl_->handOver(
      [&](store::WriteBatch& b) {
        b.records.started = info;
        if (info.resumed_after_ms >= 0) b.resume_experiment = impl_->resume_experiment;
      },
      true));
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->error) std::rethrow_exception(impl_->error);
}

void StoreSink::resumeExperiment(int64_t experiment_id) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->resume_experiment = experiment_id;
}

void StoreSink::onArmWeights(const ArmWeights& weights) {
  append([&](RecordBatch& b) { b.arm_weights.push_back(weights); }, Urgency::kNow);
}

void StoreSink::append(const std::function<void(RecordBatch&)>& add, Urgency urgency) {
  impl_->handOver([&](store::WriteBatch& b) { add(b.records); }, urgency == Urgency::kNow);
}

void StoreSink::onRunFinished(const RunSummary& summary) {
  BatchingSink::onRunFinished(summary);  // handed over at once (urgent)
  impl_->waitFor(impl_->handedSoFar());
}

void StoreSink::finish() {
  impl_->waitFor(impl_->handOver([](store::WriteBatch&) {}, true));
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->error) std::rethrow_exception(impl_->error);
}

const std::string& StoreSink::path() const { return impl_->path; }

int64_t StoreSink::experimentId() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->experiment_id;
}

std::vector<StoredRun> StoreSink::runs() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->runs;
}

}  // namespace accumlab
