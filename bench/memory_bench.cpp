// SPDX-License-Identifier: GPL-3.0-or-later
// Tensor memory against speed, and what measuring it costs:
//   build/bench/memory_bench table [--data SPEC] [--model SPEC] [--effective-batch B]
//                                  [--windows N] [--reps N]
//     The accumulation trade-off in numbers: for m = 8, 16, … ≤ B and K = B/m, the accum
//     arm's peak tensor bytes and samples/s (median of reps, the m values interleaved).
//   build/bench/memory_bench overhead [--pairs N] [--samples N]
//     samples/s of the default experiment (3 arms) with the counting allocator and without,
//     each run in its own process, the two alternating; prints the median ratio.
//   build/bench/memory_bench run [--no-accounting] [--samples N]
//     One default experiment; prints {"samples_per_s": …} (what `overhead` runs).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "accumlab/trainer.h"
#include "memory/counting_allocator.h"

namespace {

using namespace accumlab;

// Debian's dataset-fashion-mnist: real 28×28 images when installed.
constexpr char kFashionMnist[] = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";

std::map<std::string, std::string> options(int argc, char** argv, int first) {
  std::map<std::string, std::string> o;
  for (int i = first; i < argc; ++i) {
    const std::string key = argv[i];
    if (key == "--no-accounting") {
      o[key] = "1";
    } else if (key.rfind("--", 0) == 0 && i + 1 < argc) {
      o[key] = argv[++i];
    } else {
      throw std::invalid_argument("memory_bench: unexpected argument " + key);
    }
  }
  return o;
}

std::string get(const std::map<std::string, std::string>& o, const std::string& key,
                const std::string& fallback) {
  auto it = o.find(key);
  return it == o.end() ? fallback : it->second;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int table(const std::map<std::string, std::string>& o) {
  const std::string data =
      get(o, "--data", access(kFashionMnist, R_OK) == 0 ? "fashion-mnist" : "blobs:1x28x28");
  const std::string model = get(o, "--model", "cnn");
  const int64_t b = std::stoll(get(o, "--effective-batch", "256"));
  const int64_t windows = std::stoll(get(o, "--windows", "20"));
  const int reps = std::stoi(get(o, "--reps", "3"));
  std::vector<int64_t> ms;
  for (int64_t m = 8; m <= b; m *= 2) {
    if (b % m == 0) ms.push_back(m);
  }
  std::map<int64_t, std::vector<double>> rates;
  std::map<int64_t, int64_t> peaks;
  for (int r = 0; r < reps; ++r) {
    for (int64_t m : ms) {
      ExperimentConfig c;
      c.data = data;
      c.model = model;
      c.arms = {ArmKind::kAccum};
      c.micro_batch = m;
      c.accum = b / m;
      c.samples = b * windows;
      c.grad_check_every = 0;  // a measurement, not training
      c.eval_every = c.samples * 10;
      c.device = "cpu";
      NullSink sink;
      const RunSummary s = Trainer(c).run(sink);
      const ArmSummary& a = s.arms.front();
      rates[m].push_back(a.samples_per_s);
      peaks[m] = std::max(peaks[m], a.peak_tensor_bytes);
    }
  }
  std::printf("model %s on %s, effective batch %lld, %lld updates per run, median of %d\n\n",
              model.c_str(), data.c_str(), static_cast<long long>(b),
              static_cast<long long>(windows), reps);
  std::printf("| m | K | peak tensors | samples/s |\n|---:|---:|---:|---:|\n");
  for (int64_t m : ms) {
    std::printf("| %lld | %lld | %.1f MiB | %.0f |\n", static_cast<long long>(m),
                static_cast<long long>(b / m), static_cast<double>(peaks[m]) / (1 << 20),
                median(rates[m]));
  }
  std::printf("\n");
  for (int64_t m : ms) {
    std::printf(
        "{\"m\": %lld, \"k\": %lld, \"peak_tensor_bytes\": %lld, \"samples_per_s\": %.1f}\n",
        static_cast<long long>(m), static_cast<long long>(b / m), static_cast<long long>(peaks[m]),
        median(rates[m]));
  }
  return 0;
}

/// samples/s of all arms together over the trainer's run.
double runDefault(int64_t samples) {
  ExperimentConfig c;  // the default experiment: spirals, mlp, 8 × 8, three arms
  c.samples = samples;
  c.threads = 1;
  NullSink sink;
  const auto t0 = std::chrono::steady_clock::now();
  const RunSummary s = Trainer(c).run(sink);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t total = 0;
  for (const ArmSummary& a : s.arms) total += a.samples_seen;
  return static_cast<double>(total) / seconds;
}

int run(const std::map<std::string, std::string>& o) {
  if (o.count("--no-accounting")) disableCountingAllocator();
  const double rate = runDefault(std::stoll(get(o, "--samples", "60000")));
  std::printf("{\"samples_per_s\": %.1f, \"accounting\": %s}\n", rate,
              countingAllocatorInstalled() ? "true" : "false");
  return 0;
}

double child(const std::string& samples, bool accounting) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) throw std::runtime_error("memory_bench: cannot find its own executable");
  self[n] = '\0';
  const std::string cmd = "OMP_NUM_THREADS=1 '" + std::string(self) + "' run --samples " + samples +
                          (accounting ? "" : " --no-accounting");
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("memory_bench: cannot start " + cmd);
  double rate = 0;
  if (std::fscanf(p, "{\"samples_per_s\": %lf", &rate) != 1) rate = 0;
  if (pclose(p) != 0 || rate <= 0) throw std::runtime_error("memory_bench: failed: " + cmd);
  return rate;
}

int overhead(const std::map<std::string, std::string>& o) {
  const int pairs = std::stoi(get(o, "--pairs", "7"));
  const std::string samples = get(o, "--samples", "60000");
  std::vector<double> on, off, ratios;
  for (int i = 0; i < pairs; ++i) {
    // Alternate which goes first so drift on a shared machine favours neither.
    double a, b;
    if (i % 2) {
      b = child(samples, false);
      a = child(samples, true);
    } else {
      a = child(samples, true);
      b = child(samples, false);
    }
    on.push_back(a);
    off.push_back(b);
    ratios.push_back(a / b);
    std::printf("pair %d: counting %.0f samples/s, not counting %.0f samples/s, ratio %.4f\n",
                i + 1, a, b, a / b);
    std::fflush(stdout);
  }
  std::printf(
      "median samples/s: counting %.0f, not counting %.0f; median ratio %.4f "
      "(min %.4f, max %.4f, %d pairs)\n",
      median(on), median(off), median(ratios), *std::min_element(ratios.begin(), ratios.end()),
      *std::max_element(ratios.begin(), ratios.end()), pairs);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    const auto o = options(argc, argv, 2);
    if (mode == "table") return table(o);
    if (mode == "overhead") return overhead(o);
    if (mode == "run") return run(o);
    std::fprintf(stderr, "usage: memory_bench table|overhead|run [options] (see the source)\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
