// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/evaluator.h"

#include <algorithm>
#include <limits>

#include "train/loss.h"

namespace accumlab {

namespace {
constexpr int64_t kEvalBatch = 1024;  // large enough to amortise per-call overhead
// Text logits are [batch, T, 256]: 64 sequences of 256 bytes hold 17 MB of float32 logits.
constexpr int64_t kTextEvalBatch = 64;
}  // namespace

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
  double weight = 0, predictions = 0;
  const int64_t batch = data.isText() ? kTextEvalBatch : kEvalBatch;
  for (int64_t begin = 0; begin < n; begin += batch) {
    const int64_t end = std::min(n, begin + batch);
    torch::Tensor out = model.forward(data.valInputs(begin, end, dtype, device));
    torch::Tensor y = data.valTargets(begin, end, dtype, device);
    loss_sum += summedLoss(data, out, y).to(torch::kFloat64);
    weight += data.valWeight(begin, end);
    if (data.task == Task::kClassification) {
      correct += correctPredictions(data, out, y);
      predictions += predictionCount(data, y);
    }
  }
  model.setTraining(true);
  r.loss = loss_sum.item<double>() / weight;
  r.accuracy = data.task == Task::kClassification
                   ? static_cast<double>(correct.item<int64_t>()) / predictions
                   : std::numeric_limits<double>::quiet_NaN();
  return r;
}

}  // namespace accumlab
