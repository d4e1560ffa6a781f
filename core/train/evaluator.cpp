// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/evaluator.h"

#include <algorithm>
#include <limits>

#include "train/loss.h"
#include "train/text_sample.h"

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

EvalRecord evaluationRecord(ArmStepper& stepper, const Dataset& data, torch::Device device,
                            torch::Dtype dtype, uint64_t seed, double wall_ms) {
  const EvalResult r = evaluate(stepper.model(), data, device, dtype);
  EvalRecord e;
  e.arm = stepper.kind();
  e.step = stepper.steps();
  e.samples_seen = stepper.samplesSeen();
  e.wall_ms = wall_ms;
  e.loss = r.loss;
  e.accuracy = r.accuracy;
  if (data.isText()) {
    // One seed per evaluation point. A row holds kTextStart … kTextEnd: its inputs are one
    // token shorter.
    constexpr uint64_t kTextSeedStep = 0x7E47ULL;
    e.text_sample =
        sampleTextLine(stepper.model(), device, data.sample_shape.front() - 1,
                       seed ^ (kTextSeedStep * static_cast<uint64_t>(e.samples_seen + 1)));
  }
  return e;
}

}  // namespace accumlab
