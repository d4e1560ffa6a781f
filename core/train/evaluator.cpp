#include "train/evaluator.h"

#include <algorithm>
#include <limits>

namespace accumlab {

namespace {
constexpr int64_t kEvalBatch = 1024;  // large enough to amortise per-call overhead
}

EvalResult evaluate(Model& model, const Dataset& data, const torch::Device& device,
                    torch::Dtype dtype) {
  EvalResult r;
  const int64_t n = data.valSize();
  if (n == 0)
    return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  torch::NoGradGuard no_grad;
  model.setTraining(false);
  torch::Tensor loss_sum =
      torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(device));
  torch::Tensor correct =
      torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device));
  namespace F = torch::nn::functional;
  for (int64_t begin = 0; begin < n; begin += kEvalBatch) {
    const int64_t end = std::min(n, begin + kEvalBatch);
    torch::Tensor out = model.forward(data.valInputs(begin, end, dtype, device));
    torch::Tensor y = data.valTargets(begin, end, dtype, device);
    if (data.task == Task::kClassification) {
      loss_sum += F::cross_entropy(out, y, F::CrossEntropyFuncOptions().reduction(torch::kSum))
                      .to(torch::kFloat64);
      correct += out.argmax(1).eq(y).sum();
    } else {
      loss_sum += F::mse_loss(out, y.view_as(out), F::MSELossFuncOptions().reduction(torch::kSum))
                      .to(torch::kFloat64);
    }
  }
  model.setTraining(true);
  r.loss = loss_sum.item<double>() / static_cast<double>(n);
  r.accuracy = data.task == Task::kClassification
                   ? static_cast<double>(correct.item<int64_t>()) / static_cast<double>(n)
                   : std::numeric_limits<double>::quiet_NaN();
  return r;
}

}  // namespace accumlab
