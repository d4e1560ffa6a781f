// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/grad_window.h"

#include "train/fused_mlp.h"
#include "train/loss.h"

#include <algorithm>
#include <cmath>

namespace accumlab {

namespace {

// |t|² as a one-element tensor on t's device (a BLAS dot product), for a model not on the CPU.
torch::Tensor deviceSquaredNorm(const torch::Tensor& t) {
  const torch::Tensor flat = t.reshape(-1);  // float32 or float64: the dtypes a run trains in
  return torch::dot(flat, flat);
}

// Σ x² over n floats. On the MLP 784-256-10 at m = 8, K = 8, the hooks cost 70 µs per window
// this way against 134 µs for torch::dot (86 µs for cblas_sdot called directly): a dispatched
// op costs more than summing a layer's gradient that autograd just wrote. The AVX2 clone is
// picked at load time where the CPU has it.
#if defined(__GNUC__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
double
sumOfSquares(const float* x, int64_t n) {
  constexpr int64_t kLanes = 16;
  constexpr int64_t kBlock = 4096;
  double total = 0;
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    float lane[kLanes] = {};
    for (int64_t b = i; b < i + kBlock; b += kLanes) {
      for (int64_t j = 0; j < kLanes; ++j) lane[j] += x[b + j] * x[b + j];
    }
    for (const float v : lane) total += v;
  }
  for (; i < n; ++i) total += static_cast<double>(x[i]) * x[i];
  return total;
}

double sumOfSquares(const double* x, int64_t n) {
  double lane[4] = {};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int64_t j = 0; j < 4; ++j) lane[j] += x[i + j] * x[i + j];
  }
  double total = (lane[0] + lane[1]) + (lane[2] + lane[3]);
  for (; i < n; ++i) total += x[i] * x[i];
  return total;
}

}  // namespace

double hostSquaredNorm(const torch::Tensor& t) {
  const torch::Tensor c = t.is_contiguous() ? t : t.contiguous();
  switch (c.scalar_type()) {
    case torch::kFloat:
      return sumOfSquares(c.data_ptr<float>(), c.numel());
    case torch::kDouble:
      return sumOfSquares(c.data_ptr<double>(), c.numel());
    default:
      return c.to(torch::kDouble).pow(2).sum().item<double>();
  }
}

GradWindow::GradWindow(Model& model, const Dataset& data, torch::Device device, torch::Dtype dtype,
                       bool with_noise_hooks)
    : model_(model), data_(data), device_(device), dtype_(dtype), params_(model.parameters()) {
  // The fused path is written for the CPU's kernels and the per-sample losses of samples of
  // one shape; on a GPU autograd's overhead hides behind the device's queue.
  auto stack = model.reluStack();
  if (!stack.empty() && device.is_cpu() && !data.isText() &&
      (dtype == torch::kFloat32 || dtype == torch::kFloat64)) {
    fused_ = std::make_unique<FusedMlp>(std::move(stack), params_);
  }
  if (!with_noise_hooks) return;  // a hook per parameter costs ~1 µs per backward
  for (auto& p : params_) {
    hooks_.push_back(p.register_hook([this](const torch::Tensor& grad) {
      std::lock_guard<std::mutex> lock(hook_mutex_);
      if (!capturing_) return;
      if (grad.is_cpu()) {
        captured_host_.push_back(hostSquaredNorm(grad));
      } else {
        captured_device_.push_back(deviceSquaredNorm(grad));
      }
    }));
  }
}

GradWindow::~GradWindow() {
  for (size_t i = 0; i < hooks_.size(); ++i) params_[i].remove_hook(hooks_[i]);
}

void GradWindow::dropGrads() {
  // Zeroing and then adding the first micro-batch's gradient gives the same bits as taking
  // it over, at the cost of two passes over every gradient. Together with hostValues():
  // 22.3k → 25.1k samples/s on the MLP 784-256-10 at m = 8, K = 1, noise statistics off
  // (medians of 5 interleaved runs).
  for (auto& p : params_) p.mutable_grad().reset();
}

void GradWindow::fillMissingGrads() {
  for (auto& p : params_) {
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
  }
}

namespace {

// The values of one-element tensors, in double. On the CPU they are read in place: a stack
// and a copy to the host are two more dispatched ops per window, which a small window feels.
// On a device, one transfer for all of them.
std::vector<double> hostValues(const std::vector<torch::Tensor>& scalars) {
  std::vector<double> values;
  values.reserve(scalars.size());
  if (scalars.empty()) return values;
  if (scalars.front().is_cpu()) {
    for (const auto& t : scalars) {
      switch (t.scalar_type()) {
        case torch::kFloat:
          values.push_back(*t.data_ptr<float>());
          break;
        case torch::kDouble:
          values.push_back(*t.data_ptr<double>());
          break;
        default:
          values.push_back(t.item<double>());
      }
    }
    return values;
  }
  const torch::Tensor all = torch::stack(scalars).reshape(-1).to(torch::kCPU, torch::kFloat64);
  const double* v = all.data_ptr<double>();
  values.assign(v, v + all.numel());
  return values;
}

// Σ over parameters of |grad|²: on the CPU summed in place, on a device per-tensor dot
// products added up on the host.
double squaredGradNorm(const std::vector<torch::Tensor>& params) {
  double sq = 0;
  if (params.empty() || params.front().grad().is_cpu()) {
    for (const auto& p : params) sq += hostSquaredNorm(p.grad());
    return sq;
  }
  std::vector<torch::Tensor> squares;
  squares.reserve(params.size());
  for (const auto& p : params) squares.push_back(deviceSquaredNorm(p.grad()));
  for (const double v : hostValues(squares)) sq += v;
  return sq;
}

}  // namespace

void WindowResult::finish() {
  loss = samples > 0 ? loss_sum / samples : 0.0;
  mb_loss_mean = batches > 0 ? mean_sum / batches : 0.0;
  // Σ(x − x̄)² = Σx² − (Σx)²/n; the means are O(1) and few, so this loses nothing that shows.
  mb_loss_var = batches > 1
                    ? std::max(0.0, mean_sq_sum - mean_sum * mean_sum / batches) / (batches - 1)
                    : 0.0;
  finite = std::isfinite(loss_sum) && std::isfinite(grad_sq);
  has_noise = finite && measured > 1;
  if (!has_noise) return;
  g_small_sq = small_sq_sum / measured;
  // E|g_i|² = |G|² + trΣ/n_i, so uneven sizes average as a harmonic mean.
  b_small = measured / inv_size_sum;
  b_big = samples;
  g_big_sq = grad_sq;
}

void GradWindow::addClipped(const torch::Tensor& sum, double scale, double n, double max_norm) {
  // .grad is set aside, so that the backward leaves this micro-batch's own part in it:
  // scale·n·g_i, with g_i its mean gradient, which is clipped as clip_grad_norm_ would clip
  // it and then added to what was set aside.
  std::vector<torch::Tensor> before;
  before.reserve(params_.size());
  for (auto& p : params_) {
    before.push_back(p.grad());
    p.mutable_grad().reset();
  }
  (sum * scale).backward();
  fillMissingGrads();
  const double norm = std::sqrt(squaredGradNorm(params_)) / std::abs(scale * n);  // |g_i|
  const double factor = std::min(1.0, max_norm / (norm + 1e-6));
  torch::NoGradGuard no_grad;
  for (size_t j = 0; j < params_.size(); ++j) {
    torch::Tensor own = params_[j].grad();
    if (factor < 1.0) own.mul_(factor);
    if (before[j].defined()) params_[j].mutable_grad() = before[j].add_(own);
  }
}

WindowResult GradWindow::run(const WindowPlan& plan, bool measure_noise, bool autograd) {
  WindowResult r;
  const size_t k = plan.micro_batches.size();
  // A worker's share of a data-parallel window measures even its one micro-batch: the other
  // workers' make up the set.
  const bool noise = measure_noise && !hooks_.empty() && (k > 1 || plan.shard) && plan.exact_mean;
  if (!plan.keep_grads) dropGrads();
  std::vector<torch::Tensor> sums;
  std::vector<size_t> squares_end;  // captured index where each micro-batch's squares end
  sums.reserve(k);
  {
    std::lock_guard<std::mutex> lock(hook_mutex_);
    captured_host_.clear();
    captured_device_.clear();
    capturing_ = noise;
  }
  const bool fused = fused_ && !autograd && plan.clip_each <= 0;
  const bool classification = data_.task == Task::kClassification;
  for (size_t i = 0; i < k; ++i) {
    const torch::Tensor& rows = plan.micro_batches[i];
    if (fused) {
      const torch::Tensor inputs = data_.trainInputs(rows, dtype_, device_);
      const torch::Tensor targets = data_.trainTargets(rows, dtype_, device_);
      std::lock_guard<std::mutex> lock(hook_mutex_);
      sums.push_back(fused_->microBatch(inputs, targets, classification, plan.loss_scales[i],
                                        noise ? &captured_host_ : nullptr));
      if (noise) squares_end.push_back(captured_host_.size());
      continue;
    }
    torch::Tensor output = model_.forward(data_.trainInputs(rows, dtype_, device_));
    torch::Tensor sum = summedLoss(data_, output, data_.trainTargets(rows, dtype_, device_));
    if (plan.clip_each > 0) {
      addClipped(sum, plan.loss_scales[i], plan.weights[i], plan.clip_each);
    } else {
      (sum * plan.loss_scales[i]).backward();
    }
    sums.push_back(sum.detach());
    if (noise) {
      std::lock_guard<std::mutex> lock(hook_mutex_);
      // A model lives on one device, so one of the two lists fills.
      squares_end.push_back(captured_host_.size() + captured_device_.size());
    }
  }
  if (fused) fused_->release();
  fillMissingGrads();
  // A shard's gradient is a part: its norm is taken once the workers have summed it.
  if (!plan.shard) r.grad_sq = squaredGradNorm(params_);
  r.samples = plan.weight;
  std::vector<double> squares;
  {
    std::lock_guard<std::mutex> lock(hook_mutex_);
    capturing_ = false;
    squares = captured_device_.empty() ? std::move(captured_host_) : hostValues(captured_device_);
    captured_host_.clear();
    captured_device_.clear();
  }
  if (k == 0) {  // a worker with no share of a short window
    r.finish();
    return r;
  }

  const std::vector<double> s = hostValues(sums);
  // Loss statistics are of the planned micro-batches: pieces cut after an out-of-memory
  // (plan.batch_of) add up to their micro-batch.
  const size_t groups = plan.batches();
  std::vector<double> group_sum(groups, 0.0), group_rows(groups, 0.0);
  for (size_t i = 0; i < k; ++i) {
    const size_t g = plan.batch_of.empty() ? i : plan.batch_of[i];
    r.loss_sum += s[i];
    group_sum[g] += s[i];
    group_rows[g] += plan.weights[i];
  }
  for (size_t g = 0; g < groups; ++g) {
    const double mean = group_sum[g] / group_rows[g];
    r.mean_sum += mean;
    r.mean_sq_sum += mean * mean;
  }
  r.batches = static_cast<double>(groups);
  if (noise && std::isfinite(r.loss_sum) && !squares.empty()) {
    size_t begin = 0;
    for (size_t i = 0; i < k; ++i) {
      // The hook saw c·g_i, c = the micro-batch's loss scale times its size.
      const double n = plan.weights[i];
      const double c = plan.loss_scales[i] * n;
      double sq = 0;
      for (size_t j = begin; j < squares_end[i]; ++j) sq += squares[j];
      begin = squares_end[i];
      r.small_sq_sum += sq / (c * c);
      r.inv_size_sum += 1.0 / n;
    }
    r.measured = static_cast<double>(k);
  }
  r.finish();
  return r;
}

}  // namespace accumlab
