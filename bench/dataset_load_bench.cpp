// SPDX-License-Identifier: GPL-3.0-or-later
// How long Fashion-MNIST (60k train + 10k test, the .gz files) takes to load and how much
// memory it adds. Usage: dataset_load_bench [--data SPEC] [--reps N]
// Prints the median, min and max load time over N loads, the resident memory the loaded
// dataset adds and the peak added while loading, then the same as one JSON line.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "accumlab/input_error.h"
#include "data/dataset_factory.h"

namespace {

constexpr int kDefaultReps = 7;

// A field of /proc/self/status (VmRSS, VmHWM) in MiB.
double procStatusMiB(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024.0;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  accumlab::ExperimentConfig config;
  config.data = "fashion-mnist";
  int reps = kDefaultReps;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--data") config.data = argv[i + 1];
    if (arg == "--reps") reps = std::max(1, std::stoi(argv[i + 1]));
  }
  torch::set_num_threads(1);
  (void)torch::ones({4}).sum().item<float>();  // LibTorch's lazy start-up is not the loader's
  const double rss_before = procStatusMiB("VmRSS");

  std::vector<double> seconds;
  double rss_added = 0;
  double peak_added = 0;
  std::string described;
  try {
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      accumlab::Dataset ds = accumlab::loadDataset(config);
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (r == 0) {
        rss_added = procStatusMiB("VmRSS") - rss_before;
        peak_added = procStatusMiB("VmHWM") - rss_before;
        described = ds.describe();
      }
    }
  } catch (const accumlab::InputError& e) {
    std::cerr << "dataset_load_bench: " << e.what() << "\n";
    return 2;
  }
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  std::printf("%s\n", described.c_str());
  std::printf("load time: median %.3f s, min %.3f s, max %.3f s over %d loads\n", median,
              sorted.front(), sorted.back(), reps);
  std::printf("memory: %.1f MiB resident added by the dataset, %.1f MiB peak added while loading\n",
              rss_added, peak_added);
  std::printf(
      "{\"data\": \"%s\", \"load_s_median\": %.4f, \"load_s_min\": %.4f, \"load_s_max\": %.4f, "
      "\"rss_added_mib\": %.1f, \"peak_added_mib\": %.1f}\n",
      config.data.c_str(), median, sorted.front(), sorted.back(), rss_added, peak_added);
  return 0;
}
