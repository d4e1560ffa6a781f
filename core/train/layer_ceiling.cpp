// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/layer_ceiling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <vector>

namespace accumlab {

namespace {

using Clock = std::chrono::steady_clock;

/// A run's ceiling: its timings last this long in all (after the warm-up), in this many
/// repeats, whose median counts.
constexpr double kCeilingSeconds = 0.03;
constexpr int kCeilingRepeats = 5;

/// A tensor of `shape` filled with evenly spaced values in [-1, 1]: no random numbers.
torch::Tensor filled(c10::IntArrayRef shape, const torch::TensorOptions& options) {
  int64_t n = 1;
  for (const int64_t s : shape) n *= s;
  return torch::linspace(-1.0, 1.0, n, options).reshape(shape);
}

std::string times(int64_t a, int64_t b) { return std::to_string(a) + "×" + std::to_string(b); }

}  // namespace

CallTiming timeCalls(const std::function<void()>& body, double min_seconds, int repeats) {
  const auto warm = Clock::now();
  body();  // warm: allocations, packing buffers, caches
  if (std::chrono::duration<double>(Clock::now() - warm).count() >= min_seconds) {
    // One call takes the whole time (a large big-batch): one more, timed, is all it gets.
    const auto start = Clock::now();
    body();
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    return {s, s};
  }
  const double each = min_seconds / repeats;
  int64_t calls = 1;
  for (;;) {
    const auto start = Clock::now();
    for (int64_t i = 0; i < calls; ++i) body();
    if (std::chrono::duration<double>(Clock::now() - start).count() >= each) break;
    calls *= 2;
  }
  std::vector<double> per_call;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    for (int64_t i = 0; i < calls; ++i) body();
    per_call.push_back(std::chrono::duration<double>(Clock::now() - start).count() /
                       static_cast<double>(calls));
  }
  std::sort(per_call.begin(), per_call.end());
  const size_t n = per_call.size();
  return {per_call.front(),
          n % 2 ? per_call[n / 2] : 0.5 * (per_call[n / 2 - 1] + per_call[n / 2])};
}

LayerForward layerForward(const CeilingLayer& layer, int64_t rows, torch::Device device,
                          torch::Dtype dtype) {
  const auto options = torch::TensorOptions().device(device).dtype(dtype);
  LayerForward f;
  if (layer.kind == CeilingLayer::Kind::kLinear) {
    const torch::Tensor x = filled({rows, layer.in}, options);
    const torch::Tensor w = filled({layer.out, layer.in}, options);
    const torch::Tensor b = filled({layer.out}, options);
    torch::Tensor y = torch::empty({rows, layer.out}, options);
    f.flops = 2.0 * static_cast<double>(rows * layer.in * layer.out);
    f.op = "GEMM " + times(rows, layer.in) + " by " + times(layer.in, layer.out);
    f.call = [x, w, b, y]() mutable { torch::addmm_out(y, b, x, w.t()); };
  } else if (layer.kind == CeilingLayer::Kind::kConvolution) {
    const int64_t k = layer.kernel, pad = layer.padding;
    const torch::Tensor x = filled({rows, layer.in, layer.height, layer.width}, options);
    const torch::Tensor w = filled({layer.out, layer.in, k, k}, options);
    const torch::Tensor b = filled({layer.out}, options);
    const int64_t h = layer.height + 2 * pad - k + 1, wd = layer.width + 2 * pad - k + 1;
    f.flops = 2.0 * static_cast<double>(layer.in * k * k * layer.out * h * wd * rows);
    f.op = times(k, k) + " convolution " + std::to_string(layer.in) + "→" +
           std::to_string(layer.out) + " channels on " + std::to_string(rows) + " images of " +
           times(layer.height, layer.width);
    f.call = [x, w, b, pad] { torch::conv2d(x, w, b, 1, pad); };
  }
  return f;
}

ArmCeiling measureCeiling(ArmKind kind, double flops_per_sample, const CeilingLayer& layer,
                          int64_t m, torch::Device device, torch::Dtype dtype) {
  ArmCeiling c;
  c.arm = kind;
  if (flops_per_sample > 0) c.flops_per_sample = flops_per_sample;
  if (!(flops_per_sample > 0) || layer.kind == CeilingLayer::Kind::kNone || m < 1 ||
      !device.is_cpu()) {
    return c;
  }
  torch::NoGradGuard no_grad;
  const LayerForward f = layerForward(layer, m, device, dtype);
  const CallTiming t = timeCalls(f.call, kCeilingSeconds, kCeilingRepeats);
  if (t.median_s > 0) {
    c.gflop_per_s = f.flops / t.median_s * 1e-9;
    c.op = f.op;
  }
  return c;
}

std::vector<ArmCeiling> measureCeilings(const std::vector<std::unique_ptr<ArmRun>>& arms,
                                        torch::Device device, torch::Dtype dtype) {
  std::map<int64_t, ArmCeiling> by_size;
  std::vector<ArmCeiling> counted;
  for (const auto& arm : arms) {
    const Model& model = arm->stepper->model();
    const int64_t m = arm->stepper->microBatch();
    auto it = by_size.find(m);
    if (it == by_size.end()) {
      it = by_size
               .emplace(m, measureCeiling(arm->stepper->kind(), model.flopsPerSample(),
                                          model.ceilingLayer(), m, device, dtype))
               .first;
    }
    arm->ceiling = it->second;
    arm->ceiling.arm = arm->stepper->kind();
    if (std::isfinite(arm->ceiling.flops_per_sample)) counted.push_back(arm->ceiling);
  }
  return counted;
}

}  // namespace accumlab
