// SPDX-License-Identifier: GPL-3.0-or-later
// The run store's speed: bulk insert through StoreSink (the path a training run takes), and
// on a file of 1M step rows the time to open it and list its runs and to load one run's
// metrics; then training throughput with a StoreSink vs without (the same run, in this
// process, alternating). Usage: store_bench [--rows N] [--reps N] [--keep FILE]
//   [--pairs N] [--samples N]
// Prints medians (min–max) over the repetitions, then the same as one JSON line.
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "accumlab/run_store.h"
#include "accumlab/trainer.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kDefaultRows = 1'000'000;  ///< the issue's DB size
constexpr int64_t kRowsPerRun = 100'000;     ///< a long run: 100k optimizer steps
constexpr int kDefaultReps = 9;
constexpr int kDefaultPairs = 7;             ///< store on/off pairs of training runs
constexpr int64_t kDefaultSamples = 40'000;  ///< per arm, per training run

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Figures {
  double median, min, max;
};

Figures figures(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

accumlab::StepRecord step(int64_t s) {
  accumlab::StepRecord r;
  r.arm = accumlab::ArmKind::kAccum;
  r.step = s;
  r.samples_seen = s * 64;
  r.wall_ms = s * 0.5;
  r.micro_batch = 8;
  r.accum = 8;
  r.window_samples = 64;
  r.loss = 2.0 / (1.0 + 1e-3 * s);
  r.mb_loss_mean = r.loss * 1.01;
  r.mb_loss_var = 0.01;
  r.grad_norm = 1.0 / (1 + s);
  r.lr = 0.05;
  r.samples_per_s = 50000;
  r.memory_bytes = 200 << 20;
  r.g_small_sq = 2;
  r.g_big_sq = 1;
  r.b_small = 8;
  r.b_big = 64;
  r.trace_sigma_est = 9.1;
  r.g_sq_est = 0.9;
  r.trace_sigma_ema = 9;
  r.g_sq_ema = 0.95;
  r.b_simple = 9.5;
  r.noise_per_update = 0.14;
  r.loss_var_rolling = 0.02;
  return r;
}

/// Stores one finished single-arm run of `rows` steps; returns the seconds it took from the
/// first hand-over to the last commit.
double storeRun(const std::string& db, int64_t rows) {
  accumlab::StoreSink sink(db);
  accumlab::RunInfo info;
  info.config.arms = {accumlab::ArmKind::kAccum};
  sink.onRunStarted(info);
  const auto t0 = Clock::now();
  for (int64_t s = 1; s <= rows; ++s) sink.onStep(step(s));
  accumlab::ArmSummary a;
  a.arm = accumlab::ArmKind::kAccum;
  a.status = accumlab::ArmStatus::kFinished;
  a.steps = rows;
  sink.onArmFinished(a);
  sink.finish();
  return msSince(t0) / 1000.0;
}

/// CPU seconds the calling thread has used.
double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Samples per second (all arms) of one training run, per wall second and per CPU second of
/// the training thread.
struct Rate {
  double wall = 0;
  double cpu = 0;
};

/// One training run, storing into `db` unless it is empty.
Rate trainingRate(int64_t samples, const std::string& db) {
  accumlab::ExperimentConfig config;
  config.data = "spirals";
  config.samples = samples;
  config.epochs = 0;
  config.threads = 1;
  accumlab::Trainer trainer(config);
  accumlab::NullSink null;  // the no-store side
  std::unique_ptr<accumlab::StoreSink> store;
  if (!db.empty()) store = std::make_unique<accumlab::StoreSink>(db);
  accumlab::MetricsSink& sink = store ? static_cast<accumlab::MetricsSink&>(*store) : null;
  // The clock covers what the training thread does, data set-up aside; the final commit is
  // included since `run` waits for it.
  struct Timed : accumlab::MetricsSink {
    accumlab::MetricsSink* inner;
    Clock::time_point start;
    double cpu_start = 0, cpu_end = 0;
    void onRunStarted(const accumlab::RunInfo& i) override {
      inner->onRunStarted(i);
      start = Clock::now();
      cpu_start = threadCpuSeconds();
    }
    void onStep(const accumlab::StepRecord& r) override { inner->onStep(r); }
    void onEval(const accumlab::EvalRecord& r) override { inner->onEval(r); }
    void onEvent(const accumlab::EventRecord& r) override { inner->onEvent(r); }
    void onArmFinished(const accumlab::ArmSummary& s) override { inner->onArmFinished(s); }
    void onRunFinished(const accumlab::RunSummary& s) override {
      inner->onRunFinished(s);
      cpu_end = threadCpuSeconds();
    }
  } timed;
  timed.inner = &sink;
  const accumlab::RunSummary summary = trainer.run(timed);
  const double seconds = msSince(timed.start) / 1000.0;
  int64_t total = 0;
  for (const auto& a : summary.arms) total += a.samples_seen;
  return {static_cast<double>(total) / seconds,
          static_cast<double>(total) / (timed.cpu_end - timed.cpu_start)};
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = kDefaultRows;
  int reps = kDefaultReps;
  std::string keep;
  int pairs = kDefaultPairs;
  int64_t samples = kDefaultSamples;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--rows") rows = std::max<int64_t>(kRowsPerRun, std::stoll(argv[i + 1]));
    if (arg == "--reps") reps = std::max(1, std::stoi(argv[i + 1]));
    if (arg == "--keep") keep = argv[i + 1];
    if (arg == "--pairs") pairs = std::max(0, std::stoi(argv[i + 1]));
    if (arg == "--samples") samples = std::max<int64_t>(1000, std::stoll(argv[i + 1]));
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("accumlab-store-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string db = keep.empty() ? (dir / "runs.sqlite").string() : keep;
  std::filesystem::remove(db);

  // Bulk insert: the DB is built run by run; each run's rate counts.
  std::vector<double> rates;
  for (int64_t done = 0; done < rows; done += kRowsPerRun) {
    rates.push_back(static_cast<double>(kRowsPerRun) / storeRun(db, kRowsPerRun));
  }
  const Figures insert = figures(rates);

  std::vector<double> list_ms, load_ms;
  int64_t listed = 0, loaded = 0, stored = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    {
      accumlab::RunStore store(db);  // open, as `accumlab-cli list` does, then list
      listed = static_cast<int64_t>(store.listRuns().size());
    }
    list_ms.push_back(msSince(t0));
    accumlab::RunStore store(db);
    const int64_t id = store.listRuns().at(listed / 2).id;
    t0 = Clock::now();
    loaded = static_cast<int64_t>(store.series(id).steps.size());
    load_ms.push_back(msSince(t0));
    stored = store.stepRowCount();
  }
  const Figures list = figures(list_ms), load = figures(load_ms);
  std::printf(
      "bulk insert through StoreSink: %.0f rows/s median (%.0f–%.0f) over %zu runs of %lld steps\n",
      insert.median, insert.min, insert.max, rates.size(), static_cast<long long>(kRowsPerRun));
  std::printf("DB of %lld step rows, %.1f MiB\n", static_cast<long long>(stored),
              std::filesystem::file_size(db) / 1048576.0);
  std::printf("open + list %lld runs: %.2f ms median (%.2f–%.2f)\n", static_cast<long long>(listed),
              list.median, list.min, list.max);
  std::printf("load one run's metrics (%lld steps): %.1f ms median (%.1f–%.1f)\n",
              static_cast<long long>(loaded), load.median, load.min, load.max);

  // Store on vs off: alternate which goes first so drift on a shared machine favours neither.
  std::vector<double> ratios, cpu_ratios;
  const std::string train_db = (dir / "train.sqlite").string();
  for (int p = 0; p < pairs; ++p) {
    Rate on, off;
    if (p % 2) {
      on = trainingRate(samples, train_db);
      off = trainingRate(samples, "");
    } else {
      off = trainingRate(samples, "");
      on = trainingRate(samples, train_db);
    }
    ratios.push_back(on.wall / off.wall);
    cpu_ratios.push_back(on.cpu / off.cpu);
    std::printf(
        "training pair %d: store %.0f samples/s, no store %.0f samples/s, ratio %.4f "
        "(per training-thread CPU second: %.4f)\n",
        p + 1, on.wall, off.wall, on.wall / off.wall, on.cpu / off.cpu);
  }
  const Figures ratio = ratios.empty() ? Figures{0, 0, 0} : figures(ratios);
  const Figures cpu_ratio = cpu_ratios.empty() ? Figures{0, 0, 0} : figures(cpu_ratios);
  if (!ratios.empty()) {
    std::printf(
        "training with the store / without: %.4f median (%.4f–%.4f) over %d pairs; per "
        "training-thread CPU second %.4f (%.4f–%.4f)\n",
        ratio.median, ratio.min, ratio.max, pairs, cpu_ratio.median, cpu_ratio.min, cpu_ratio.max);
  }
  std::printf(
      "{\"insert_rows_per_s\": %.0f, \"db_rows\": %lld, \"list_ms\": %.2f, \"load_run_ms\": %.1f, "
      "\"load_run_rows\": %lld, \"store_on_off_ratio\": %.4f, \"store_on_off_cpu_ratio\": %.4f}\n",
      insert.median, static_cast<long long>(stored), list.median, load.median,
      static_cast<long long>(loaded), ratio.median, cpu_ratio.median);
  if (keep.empty()) std::filesystem::remove_all(dir);
  return 0;
}
