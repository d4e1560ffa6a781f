#include "train/grad_window.h"

#include <cmath>

namespace accumlab {

GradWindow::GradWindow(Model& model, const Dataset& data, torch::Device device,
                       torch::Dtype dtype)
    : model_(model), data_(data), device_(device), dtype_(dtype), params_(model.parameters()) {}

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

double squaredGradNorm(const std::vector<torch::Tensor>& params) {
  // Per-tensor norms are vectorised kernels; a sum with a dtype cast is not, and was 10×
  // slower on wide layers. One host transfer at the end.
  std::vector<torch::Tensor> norms;
  norms.reserve(params.size());
  for (const auto& p : params) norms.push_back(p.grad().norm());
  const double n = torch::stack(norms).norm().item<double>();
  return n * n;
}

WindowResult GradWindow::run(const WindowPlan& plan, bool measure_noise) {
  WindowResult r;
  const size_t k = plan.micro_batches.size();
  const bool noise = measure_noise && k > 1 && plan.exact_mean;
  if (noise && accumulator_.empty()) {
    for (const auto& p : params_) accumulator_.push_back(torch::zeros_like(p));
  }
  zeroGrad();
  std::vector<torch::Tensor> sums;
  std::vector<double> small_sq;
  sums.reserve(k);
  double inv_size_sum = 0;
  for (size_t i = 0; i < k; ++i) {
    const torch::Tensor& rows = plan.micro_batches[i];
    const double n = static_cast<double>(rows.size(0));
    torch::Tensor output = model_.forward(data_.trainInputs(rows, dtype_, device_));
    torch::Tensor sum = lossSum(output, data_.trainTargets(rows, dtype_, device_));
    (sum * plan.loss_scales[i]).backward();
    sums.push_back(sum.detach());
    if (!noise) continue;
    // .grad now holds c·g_i with g_i the micro-batch's mean gradient.
    const double c = plan.loss_scales[i] * n;
    small_sq.push_back(squaredGradNorm(params_) / (c * c));
    inv_size_sum += 1.0 / n;
    torch::NoGradGuard no_grad;
    for (size_t p = 0; p < params_.size(); ++p) {
      if (i + 1 < k) {
        accumulator_[p].add_(params_[p].grad());
        params_[p].mutable_grad().zero_();
      } else {
        params_[p].mutable_grad().add_(accumulator_[p]);
        accumulator_[p].zero_();
      }
    }
  }

  // One device-to-host transfer for all micro-batch losses.
  torch::Tensor all = torch::stack(sums).to(torch::kCPU, torch::kFloat64);
  const double* s = all.data_ptr<double>();
  double total = 0, mean_sum = 0;
  std::vector<double> means(k);
  for (size_t i = 0; i < k; ++i) {
    total += s[i];
    means[i] = s[i] / static_cast<double>(plan.micro_batches[i].size(0));
    mean_sum += means[i];
  }
  r.loss = total / static_cast<double>(plan.samples);
  r.mb_loss_mean = mean_sum / static_cast<double>(k);
  double ss = 0;
  for (double m : means) ss += (m - r.mb_loss_mean) * (m - r.mb_loss_mean);
  r.mb_loss_var = k > 1 ? ss / static_cast<double>(k - 1) : 0.0;
  r.finite = std::isfinite(r.loss);
  if (noise && r.finite) {
    double small_mean = 0;
    for (double v : small_sq) small_mean += v;
    r.has_noise = true;
    r.g_small_sq = small_mean / static_cast<double>(k);
    // E|g_i|² = |G|² + trΣ/n_i, so uneven sizes average as a harmonic mean.
    r.b_small = static_cast<double>(k) / inv_size_sum;
    r.b_big = static_cast<double>(plan.samples);
    r.g_big_sq = squaredGradNorm(params_);
  }
  return r;
}

}  // namespace accumlab
