// The run store's speed: bulk insert through StoreSink (the path a training run takes), and
// on a file of 1M step rows the time to open it and list its runs and to load one run's
// metrics. Usage: store_bench [--rows N] [--reps N] [--keep FILE]
// Prints medians (min–max) over the repetitions, then the same as one JSON line.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "accumlab/run_store.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kDefaultRows = 1'000'000;  ///< the issue's DB size
constexpr int64_t kRowsPerRun = 100'000;     ///< a long run: 100k optimizer steps
constexpr int kDefaultReps = 9;

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

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = kDefaultRows;
  int reps = kDefaultReps;
  std::string keep;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--rows") rows = std::max<int64_t>(kRowsPerRun, std::stoll(argv[i + 1]));
    if (arg == "--reps") reps = std::max(1, std::stoi(argv[i + 1]));
    if (arg == "--keep") keep = argv[i + 1];
  }
  const auto dir = std::filesystem::temp_directory_path() / ("accumlab-store-bench-" + std::to_string(getpid()));
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
  std::printf("bulk insert through StoreSink: %.0f rows/s median (%.0f–%.0f) over %zu runs of %lld steps\n",
              insert.median, insert.min, insert.max, rates.size(), static_cast<long long>(kRowsPerRun));
  std::printf("DB of %lld step rows, %.1f MiB\n", static_cast<long long>(stored),
              std::filesystem::file_size(db) / 1048576.0);
  std::printf("open + list %lld runs: %.2f ms median (%.2f–%.2f)\n", static_cast<long long>(listed),
              list.median, list.min, list.max);
  std::printf("load one run's metrics (%lld steps): %.1f ms median (%.1f–%.1f)\n",
              static_cast<long long>(loaded), load.median, load.min, load.max);
  std::printf("{\"insert_rows_per_s\": %.0f, \"db_rows\": %lld, \"list_ms\": %.2f, \"load_run_ms\": %.1f, "
              "\"load_run_rows\": %lld}\n",
              insert.median, static_cast<long long>(stored), list.median, load.median,
              static_cast<long long>(loaded));
  if (keep.empty()) std::filesystem::remove_all(dir);
  return 0;
}
