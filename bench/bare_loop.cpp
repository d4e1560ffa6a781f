// SPDX-License-Identifier: GPL-3.0-or-later
// The plainest LibTorch C++ loop for gradient accumulation: the floor the engine is measured
// against. Same model (MLP 784-256-10), data layout (one float tensor, rows gathered per
// micro-batch), m, K, optimizer (SGD, momentum 0.9) and loss normalisation (sum of per-sample
// losses / window size) as the engine and bench/python_reference.py; no records, no hooks.
// Its training rows are generated in place. The engine's datasets are split from a larger
// set, which is then freed; on a machine measured here, the first epoch of random row reads
// after such a free ran slower (up to 8× per gather, erratically), so runs of one epoch or
// less favour this loop.
//   build/bench/bare_loop --micro-batch M --accum K --samples N [--threads T] [--keep-freed 1]
// --keep-freed 1 gives glibc's malloc the engine's settings (core/train/device.cpp: freed
// memory stays in the process), so that the comparison is of the loops alone.
// Prints one JSON object: {"samples_per_s": …, "samples": …, "seconds": …}.
#include <dlfcn.h>
#include <malloc.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int64_t kInputs = 784;
constexpr int64_t kHidden = 256;
constexpr int64_t kClasses = 10;
constexpr double kLr = 0.05;
constexpr double kMomentum = 0.9;

struct Args {
  int64_t micro_batch = 8;
  int64_t accum = 1;
  int64_t samples = 24000;
  int64_t threads = 1;
  int64_t train_size = 20000;
  bool keep_freed = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const int64_t value = std::atoll(argv[i + 1]);
    if (key == "--micro-batch")
      a.micro_batch = value;
    else if (key == "--accum")
      a.accum = value;
    else if (key == "--samples")
      a.samples = value;
    else if (key == "--threads")
      a.threads = value;
    else if (key == "--train-size")
      a.train_size = value;
    else if (key == "--keep-freed")
      a.keep_freed = value != 0;
    else {
      std::fprintf(stderr, "bare_loop: unknown option %s\n", key.c_str());
      std::exit(2);
    }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  if (a.keep_freed) {  // the engine's values
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
  }
  // The same thread set-up as the engine: torch's pool and OpenBLAS's own.
  torch::set_num_threads(static_cast<int>(a.threads));
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(static_cast<int>(a.threads));
  }
  torch::manual_seed(0);
  const torch::Tensor x_all = torch::randn({a.train_size, kInputs});
  const torch::Tensor y_all = torch::randint(kClasses, {a.train_size}, torch::kLong);
  torch::nn::Sequential model(torch::nn::Linear(kInputs, kHidden), torch::nn::ReLU(),
                              torch::nn::Linear(kHidden, kClasses));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(kLr).momentum(kMomentum));

  const int64_t window = a.micro_batch * a.accum;
  torch::Tensor perm = torch::randperm(a.train_size);
  int64_t pos = 0, seen = 0;
  const auto start = std::chrono::steady_clock::now();
  while (seen < a.samples) {
    opt.zero_grad();
    for (int64_t i = 0; i < a.accum; ++i) {
      if (pos + a.micro_batch > a.train_size) {
        perm = torch::randperm(a.train_size);
        pos = 0;
      }
      const torch::Tensor idx = perm.slice(0, pos, pos + a.micro_batch);
      pos += a.micro_batch;
      const torch::Tensor out = model->forward(x_all.index_select(0, idx));
      const torch::Tensor loss =
          torch::nn::functional::cross_entropy(
              out, y_all.index_select(0, idx),
              torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum)) /
          static_cast<double>(window);
      loss.backward();
    }
    opt.step();
    seen += window;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"samples_per_s\": %.3f, \"samples\": %lld, \"seconds\": %.6f}\n",
              static_cast<double>(seen) / seconds, static_cast<long long>(seen), seconds);
  return 0;
}
