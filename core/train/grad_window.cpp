#include "train/grad_window.h"

#include <algorithm>
#include <cmath>

namespace accumlab {

GradWindow::GradWindow(Model& model, const Dataset& data, torch::Device device,
                       torch::Dtype dtype, bool with_noise_hooks)
    : model_(model), data_(data), device_(device), dtype_(dtype), params_(model.parameters()) {
  if (!with_noise_hooks) return;  // a hook per parameter costs ~1 µs per backward
  for (auto& p : params_) {
    hooks_.push_back(p.register_hook([this](const torch::Tensor& grad) {
      std::lock_guard<std::mutex> lock(hook_mutex_);
      if (capturing_) captured_.push_back(grad.norm());
    }));
  }
}

GradWindow::~GradWindow() {
  for (size_t i = 0; i < hooks_.size(); ++i) params_[i].remove_hook(hooks_[i]);
}

void GradWindow::zeroGrad() {
  for (auto& p : params_) {
    if (p.grad().defined()) {
      p.mutable_grad().zero_();
    } else {
      p.mutable_grad() = torch::zeros_like(p);
    }
  }
}

torch::Tensor GradWindow::lossSum(const torch::Tensor& output, const torch::Tensor& target) const {
  if (data_.task == Task::kClassification) {
    return torch::nn::functional::cross_entropy(
        output, target, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
  }
  // Per-sample loss: squared error summed over the targets.
  return torch::nn::functional::mse_loss(
      output, target.view_as(output),
      torch::nn::functional::MSELossFuncOptions().reduction(torch::kSum));
}

namespace {

// Σ over parameters of |grad|², reduced on the device in the parameters' dtype.
double squaredGradNorm(const std::vector<torch::Tensor>& params) {
  // Per-tensor norms are vectorised kernels; a sum with a dtype cast is not, and was 10×
  // slower on wide layers. One host transfer at the end.
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) grads.push_back(p.grad());
  const double n = torch::stack(torch::_foreach_norm(grads)).norm().item<double>();
  return n * n;
}

}  // namespace

void WindowResult::finish() {
  loss = samples > 0 ? loss_sum / samples : 0.0;
  mb_loss_mean = batches > 0 ? mean_sum / batches : 0.0;
  // Σ(x − x̄)² = Σx² − (Σx)²/n; the means are O(1) and few, so this loses nothing that shows.
  mb_loss_var = batches > 1 ? std::max(0.0, mean_sq_sum - mean_sum * mean_sum / batches) / (batches - 1) : 0.0;
  finite = std::isfinite(loss_sum) && std::isfinite(grad_sq);
  has_noise = finite && measured > 1;
  if (!has_noise) return;
  g_small_sq = small_sq_sum / measured;
  // E|g_i|² = |G|² + trΣ/n_i, so uneven sizes average as a harmonic mean.
  b_small = measured / inv_size_sum;
  b_big = samples;
  g_big_sq = grad_sq;
}

WindowResult GradWindow::run(const WindowPlan& plan, bool measure_noise) {
  WindowResult r;
  const size_t k = plan.micro_batches.size();
  // A worker's share of a data-parallel window measures even its one micro-batch: the other
  // workers' make up the set.
  const bool noise = measure_noise && !hooks_.empty() && (k > 1 || plan.shard) && plan.exact_mean;
  zeroGrad();
  std::vector<torch::Tensor> sums;
  std::vector<size_t> norms_end;  // captured_ index where each micro-batch's norms end
  sums.reserve(k);
  {
    std::lock_guard<std::mutex> lock(hook_mutex_);
    captured_.clear();
    capturing_ = noise;
  }
  for (size_t i = 0; i < k; ++i) {
    const torch::Tensor& rows = plan.micro_batches[i];
    torch::Tensor output = model_.forward(data_.trainInputs(rows, dtype_, device_));
    torch::Tensor sum = lossSum(output, data_.trainTargets(rows, dtype_, device_));
    (sum * plan.loss_scales[i]).backward();
    sums.push_back(sum.detach());
    if (noise) {
      std::lock_guard<std::mutex> lock(hook_mutex_);
      norms_end.push_back(captured_.size());
    }
  }
  // A shard's gradient is a part: its norm is taken once the workers have summed it.
  if (!plan.shard) r.grad_sq = squaredGradNorm(params_);
  r.samples = static_cast<double>(plan.samples);
  std::vector<torch::Tensor> norms;
  {
    std::lock_guard<std::mutex> lock(hook_mutex_);
    capturing_ = false;
    norms.swap(captured_);
  }
  if (k == 0) {  // a worker with no share of a short window
    r.finish();
    return r;
  }

  // One device-to-host transfer for all micro-batch losses.
  torch::Tensor all = (k == 1 ? sums.front().reshape({1}) : torch::stack(sums))
                          .to(torch::kCPU, torch::kFloat64);
  const double* s = all.data_ptr<double>();
  // Loss statistics are of the planned micro-batches: pieces cut after an out-of-memory
  // (plan.batch_of) add up to their micro-batch.
  const size_t groups = plan.batches();
  std::vector<double> group_sum(groups, 0.0), group_rows(groups, 0.0);
  for (size_t i = 0; i < k; ++i) {
    const size_t g = plan.batch_of.empty() ? i : plan.batch_of[i];
    r.loss_sum += s[i];
    group_sum[g] += s[i];
    group_rows[g] += static_cast<double>(plan.micro_batches[i].size(0));
  }
  for (size_t g = 0; g < groups; ++g) {
    const double mean = group_sum[g] / group_rows[g];
    r.mean_sum += mean;
    r.mean_sq_sum += mean * mean;
  }
  r.batches = static_cast<double>(groups);
  if (noise && std::isfinite(r.loss_sum) && !norms.empty()) {
    torch::Tensor host = torch::stack(norms).to(torch::kCPU, torch::kFloat64);
    const double* v = host.data_ptr<double>();
    size_t begin = 0;
    for (size_t i = 0; i < k; ++i) {
      // The hook saw c·g_i, c = the micro-batch's loss scale times its size.
      const double n = static_cast<double>(plan.micro_batches[i].size(0));
      const double c = plan.loss_scales[i] * n;
      double sq = 0;
      for (size_t j = begin; j < norms_end[i]; ++j) sq += v[j] * v[j];
      begin = norms_end[i];
      r.small_sq_sum += sq / (c * c);
      r.inv_size_sum += 1.0 / n;
    }
    r.measured = static_cast<double>(k);
  }
  r.finish();
  return r;
}

}  // namespace accumlab
