// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A small regression dataset in float64 with a linear model, shared by the window tests:
// every gradient below can be written down by hand, so tolerances are those of float64.
#include <torch/torch.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "data/dataset.h"
#include "models/model.h"
#include "train/window_plan.h"

namespace accumlab::testing {

struct TinyLinear {
  TinyLinear(int64_t n) {
    torch::manual_seed(3);
    data.name = "tiny";
    data.task = Task::kRegression;
    data.num_outputs = 1;
    data.sample_shape = {3};
    data.train_x = torch::randn({n, 3}, torch::kFloat64);
    data.train_y = torch::randn({n, 1}, torch::kFloat64);
    model = makeModelFactory("logreg", {3}, 1, 11)->create();
    model->to(torch::kCPU, torch::kFloat64);
  }

  // The gradient of mean_i (w·x_i + b − y_i)² over `rows`, by hand: 2/N Σ r_i (x_i, 1).
  std::vector<torch::Tensor> meanGradient(const torch::Tensor& rows) {
    auto params = model->parameters();  // weight [1,3], bias [1]
    torch::NoGradGuard g;
    torch::Tensor x = data.train_x.index_select(0, rows);
    torch::Tensor y = data.train_y.index_select(0, rows);
    torch::Tensor r = x.matmul(params[0].t()) + params[1] - y;  // [N,1]
    const double n = static_cast<double>(rows.size(0));
    return {(2.0 / n) * (r * x).sum(0, true), (2.0 / n) * r.sum(0)};
  }

  double maxDiffToGrad(const std::vector<torch::Tensor>& expected) {
    double worst = 0;
    auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      worst = std::max(worst, (params[i].grad() - expected[i]).abs().max().item<double>());
    }
    return worst;
  }

  Dataset data;
  std::unique_ptr<Model> model;
};

/// A window of consecutive micro-batches of the given sizes, scaled exactly (1/N) or, with
/// `divide_by_k`, each by 1/(n_i·K): the mean of the micro-batches' means.
inline WindowPlan unevenPlan(const std::vector<int64_t>& sizes, bool divide_by_k) {
  WindowPlan plan;
  int64_t begin = 0;
  for (int64_t s : sizes) {
    plan.micro_batches.push_back(torch::arange(begin, begin + s, torch::kLong));
    begin += s;
  }
  plan.samples = begin;
  plan.consumed = begin;
  plan.weight = static_cast<double>(begin);
  for (int64_t s : sizes) {
    plan.weights.push_back(static_cast<double>(s));
    plan.loss_scales.push_back(divide_by_k ? 1.0 / (static_cast<double>(s) * sizes.size())
                                           : 1.0 / static_cast<double>(begin));
  }
  return plan;
}

}  // namespace accumlab::testing
