// SPDX-License-Identifier: GPL-3.0-or-later
// The ceilings of the roofline (bench/roofline.py, docs/performance.md): what this core and
// this software stack can do, measured, not taken from a data sheet.
//   build/bench/roofline peak
//       the core's fp32 peak: a loop of independent fused multiply-adds (AVX-512, AVX2 or
//       plain, whichever the CPU runs), one thread.
//   build/bench/roofline layers --model mlp|cnn --micro-batch M
//       each matrix product and convolution of the model's training pass at micro-batch M,
//       timed alone through LibTorch (and so its BLAS), one thread: forward, the weight
//       gradient, the gradient at the layer's input (not for the first layer), with their
//       FLOPs. The sum of their FLOPs over the sum of their times is the pass's ceiling on
//       this software stack; the first layer's forward GEMM alone is the yardstick.
//   build/bench/roofline square --size N
//       an N×N by N×N GEMM, the BLAS's best case.
// Each prints one JSON object. FLOPs: 2 per multiply-add. The timing and each layer's forward
// are the engine's own (train/layer_ceiling.h), which a run's measured ceiling uses too.
#include <dlfcn.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "train/layer_ceiling.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kMinSeconds = 0.25;  // the timings of one call run this long in all
constexpr int kRepeats = 5;           // in this many repeats; the best is kept

// The best of kRepeats timings of `body` per call, each over enough calls for
// kMinSeconds / kRepeats, after a warm-up call.
double secondsPerCall(const std::function<void()>& body) {
  return accumlab::timeCalls(body, kMinSeconds, kRepeats).best_s;
}

// --- the FMA loop --------------------------------------------------------------------------

constexpr int kChains = 12;  // independent accumulators: more than latency × FMA ports
volatile float g_sink;

#if defined(__GNUC__) && defined(__x86_64__)
#define ROOF_TARGET(t) __attribute__((target(t)))
#else
#define ROOF_TARGET(t)
#endif

typedef float Vec16 __attribute__((vector_size(64)));
typedef float Vec8 __attribute__((vector_size(32)));
typedef float Vec4 __attribute__((vector_size(16)));

// Vectors of `Lanes` floats; returns FLOPs per second of `iterations` rounds of kChains FMAs.
// Inlined into each caller, so that it is compiled for the caller's instructions.
template <typename Vec, int Lanes>
inline __attribute__((always_inline)) double fmaLoop(int64_t iterations) {
  Vec acc[kChains];
  Vec a, b;
  for (int l = 0; l < Lanes; ++l) {
    a[l] = 0.999999f;
    b[l] = 1e-7f;
  }
  for (int c = 0; c < kChains; ++c) acc[c] = b * static_cast<float>(c + 1);
  const auto start = Clock::now();
  for (int64_t i = 0; i < iterations; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * a + b;
  }
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  float total = 0;
  for (int c = 0; c < kChains; ++c) {
    for (int l = 0; l < Lanes; ++l) total += acc[c][l];
  }
  g_sink = total;
  return 2.0 * Lanes * kChains * static_cast<double>(iterations) / s;
}

ROOF_TARGET("avx512f,fma") double fma512(int64_t n) { return fmaLoop<Vec16, 16>(n); }
ROOF_TARGET("avx2,fma") double fma256(int64_t n) { return fmaLoop<Vec8, 8>(n); }
double fmaPlain(int64_t n) { return fmaLoop<Vec4, 4>(n); }

void peak() {
  double (*loop)(int64_t) = fmaPlain;
  const char* isa = "sse";
#if defined(__GNUC__) && defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    loop = fma512;
    isa = "avx512";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    loop = fma256;
    isa = "avx2";
  }
#endif
  constexpr int64_t kIterations = 50'000'000;
  double best = 0;
  for (int r = 0; r < kRepeats; ++r) best = std::max(best, loop(kIterations));
  std::printf("{\"peak_gflops\": %.2f, \"isa\": \"%s\", \"chains\": %d}\n", best * 1e-9, isa,
              kChains);
}

// --- the layers ----------------------------------------------------------------------------

struct Op {
  std::string name;
  double flops;
  double seconds;
};

void printOps(const std::string& model, int64_t m, const std::vector<Op>& ops) {
  double flops = 0, seconds = 0;
  for (const Op& o : ops) {
    flops += o.flops;
    seconds += o.seconds;
  }
  std::printf(
      "{\"model\": \"%s\", \"micro_batch\": %lld, \"flops_per_sample\": %.0f, "
      "\"ceiling_gflops\": %.2f, \"first_gemm_gflops\": %.2f, \"ops\": [",
      model.c_str(), static_cast<long long>(m), flops / static_cast<double>(m),
      flops / seconds * 1e-9, ops.front().flops / ops.front().seconds * 1e-9);
  for (size_t i = 0; i < ops.size(); ++i) {
    std::printf("%s{\"op\": \"%s\", \"flops\": %.0f, \"us\": %.2f, \"gflops\": %.2f}",
                i ? ", " : "", ops[i].name.c_str(), ops[i].flops, ops[i].seconds * 1e6,
                ops[i].flops / ops[i].seconds * 1e-9);
  }
  std::printf("]}\n");
}

// A Linear layer in → out at m rows: forward addmm(b, x, W.t()), the weight gradient
// d.t()·x, and the gradient at the input d·W, as autograd and the fused MLP run them.
void linearOps(const std::string& name, int64_t m, int64_t in, int64_t out, bool first,
               std::vector<Op>& ops) {
  const torch::Tensor x = torch::randn({m, in}), w = torch::randn({out, in});
  const torch::Tensor d = torch::randn({m, out});
  torch::Tensor gw = torch::zeros({out, in}), gx = torch::empty({m, in});
  const double f = 2.0 * static_cast<double>(m * in * out);
  accumlab::CeilingLayer layer;
  layer.kind = accumlab::CeilingLayer::Kind::kLinear;
  layer.in = in;
  layer.out = out;
  const accumlab::LayerForward forward =
      accumlab::layerForward(layer, m, torch::kCPU, torch::kFloat);
  ops.push_back({name + " forward", forward.flops, secondsPerCall(forward.call)});
  ops.push_back(
      {name + " weight gradient", f, secondsPerCall([&] { torch::mm_out(gw, d.t(), x); })});
  if (!first) {
    ops.push_back({name + " input gradient", f, secondsPerCall([&] { torch::mm_out(gx, d, w); })});
  }
}

// A convolution of `in` channels to `out` channels, k×k, on h×w images at m rows: forward,
// the weight gradient and (not for the first layer) the gradient at the input, each alone
// through at::convolution_backward.
void convOps(const std::string& name, int64_t m, int64_t in, int64_t out, int64_t h, int64_t w,
             int64_t k, int64_t pad, bool first, std::vector<Op>& ops) {
  const torch::Tensor x = torch::randn({m, in, h, w}), weight = torch::randn({out, in, k, k});
  const torch::Tensor bias = torch::randn({out});
  const torch::Tensor y = torch::conv2d(x, weight, bias, 1, pad);
  const torch::Tensor d = torch::randn_like(y);
  const double f = 2.0 * static_cast<double>(in * k * k * out * y.size(2) * y.size(3) * m);
  accumlab::CeilingLayer layer;
  layer.kind = accumlab::CeilingLayer::Kind::kConvolution;
  layer.in = in;
  layer.out = out;
  layer.height = h;
  layer.width = w;
  layer.kernel = k;
  layer.padding = pad;
  const accumlab::LayerForward forward =
      accumlab::layerForward(layer, m, torch::kCPU, torch::kFloat);
  ops.push_back({name + " forward", forward.flops, secondsPerCall(forward.call)});
  const auto backward = [&](bool input, bool weights) {
    return [&, input, weights] {
      at::convolution_backward(d, x, weight, c10::nullopt, {1, 1}, {pad, pad}, {1, 1}, false,
                               {0, 0}, 1, {input, weights, false});
    };
  };
  ops.push_back({name + " weight gradient", f, secondsPerCall(backward(false, true))});
  if (!first) ops.push_back({name + " input gradient", f, secondsPerCall(backward(true, false))});
}

void layers(const std::string& model, int64_t m) {
  torch::NoGradGuard no_grad;
  std::vector<Op> ops;
  if (model == "mlp") {  // 784-256-10, as bench/python_reference.py and bench/bare_loop.cpp
    linearOps("fc0", m, 784, 256, true, ops);
    linearOps("fc1", m, 256, 10, false, ops);
  } else {  // the built-in cnn on 1x28x28 (core/models/builtin_nets.cpp)
    convOps("conv1", m, 1, 6, 28, 28, 5, 2, true, ops);
    convOps("conv2", m, 6, 16, 14, 14, 5, 0, false, ops);
    linearOps("fc1", m, 400, 120, false, ops);
    linearOps("fc2", m, 120, 84, false, ops);
    linearOps("head", m, 84, 10, false, ops);
  }
  printOps(model, m, ops);
}

void square(int64_t n) {
  const torch::Tensor a = torch::randn({n, n}), b = torch::randn({n, n});
  torch::Tensor c = torch::empty({n, n});
  const double s = secondsPerCall([&] { torch::mm_out(c, a, b); });
  std::printf("{\"size\": %lld, \"gflops\": %.2f}\n", static_cast<long long>(n),
              2.0 * static_cast<double>(n * n * n) / s * 1e-9);
}

}  // namespace

int main(int argc, char** argv) {
  // One thread, as the engine's default: torch's pool and OpenBLAS's own.
  torch::set_num_threads(1);
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(1);
  }
  const std::string what = argc > 1 ? argv[1] : "";
  std::string model = "mlp";
  int64_t m = 32, size = 2048;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--model") {
      model = argv[i + 1];
    } else if (key == "--micro-batch") {
      m = std::atoll(argv[i + 1]);
    } else if (key == "--size") {
      size = std::atoll(argv[i + 1]);
    } else {
      std::fprintf(stderr, "roofline: unknown option %s\n", key.c_str());
      return 2;
    }
  }
  if (what == "peak") {
    peak();
  } else if (what == "layers" && (model == "mlp" || model == "cnn") && m > 0) {
    layers(model, m);
  } else if (what == "square" && size > 0) {
    square(size);
  } else {
    std::fprintf(stderr,
                 "usage: roofline peak | layers --model mlp|cnn --micro-batch M | square "
                 "--size N\n");
    return 2;
  }
  return 0;
}
