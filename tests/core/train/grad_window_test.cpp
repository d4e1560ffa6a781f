// SPDX-License-Identifier: GPL-3.0-or-later
// Window normalisation: the applied gradient is the mean over the window's samples.
#include "train/grad_window.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/model.h"
#include "tiny_linear.h"

namespace accumlab {
namespace {

using testing::TinyLinear;
using testing::unevenPlan;

TEST(GradWindow, UnevenMicroBatchesGiveSampleMean) {
  TinyLinear t(37);
  GradWindow window(*t.model, t.data, torch::kCPU, torch::kFloat64);
  const WindowPlan plan = unevenPlan({16, 16, 5}, false);
  for (bool noise : {false, true}) {
    const WindowResult r = window.run(plan, noise);
    EXPECT_LE(t.maxDiffToGrad(t.meanGradient(torch::arange(37, torch::kLong))), 1e-12)
        << "noise " << noise;
    EXPECT_EQ(r.has_noise, noise);
  }
}

TEST(GradWindow, MeanOverKIsWrongForUnevenMicroBatches) {
  // The HF Transformers 2024 bug: mean/K weighs the 5-sample micro-batch like a 16-sample one.
  TinyLinear t(37);
  GradWindow window(*t.model, t.data, torch::kCPU, torch::kFloat64);
  window.run(unevenPlan({16, 16, 5}, true), false);
  EXPECT_GT(t.maxDiffToGrad(t.meanGradient(torch::arange(37, torch::kLong))), 1e-3);
}

TEST(GradWindow, WindowLossIsSampleWeightedMean) {
  TinyLinear t(37);
  GradWindow window(*t.model, t.data, torch::kCPU, torch::kFloat64);
  const WindowResult r = window.run(unevenPlan({16, 16, 5}, false), false);
  auto params = t.model->parameters();
  torch::NoGradGuard g;
  const double expected = (t.data.train_x.matmul(params[0].t()) + params[1] - t.data.train_y)
                              .pow(2)
                              .mean()
                              .item<double>();
  EXPECT_NEAR(r.loss, expected, 1e-12);
  EXPECT_GT(r.mb_loss_var, 0.0);
}

TEST(GradWindow, NoiseMeasuresMicroBatchGradientNorms) {
  TinyLinear t(32);
  GradWindow window(*t.model, t.data, torch::kCPU, torch::kFloat64);
  const WindowPlan plan = unevenPlan({8, 8, 8, 8}, false);
  const WindowResult r = window.run(plan, true);
  double small = 0;
  for (const auto& mb : plan.micro_batches) {
    for (const auto& g : t.meanGradient(mb)) small += g.pow(2).sum().item<double>() / 4.0;
  }
  double big = 0;
  for (const auto& g : t.meanGradient(torch::arange(32, torch::kLong)))
    big += g.pow(2).sum().item<double>();
  EXPECT_NEAR(r.g_small_sq, small, 1e-10 * small);
  EXPECT_NEAR(r.g_big_sq, big, 1e-10 * big);
  EXPECT_DOUBLE_EQ(r.b_small, 8.0);
  EXPECT_DOUBLE_EQ(r.b_big, 32.0);
}

TEST(GradWindow, AWindowLeavesTheLastWindowsGradientsAsTheyWere) {
  // The gradient check keeps the accumulated gradients and runs the window again as one big
  // batch: the new window must start from fresh gradients, not write into the kept ones.
  TinyLinear t(37);
  GradWindow window(*t.model, t.data, torch::kCPU, torch::kFloat64);
  window.run(unevenPlan({16, 16, 5}, false), false);
  std::vector<torch::Tensor> kept, copies;
  for (const auto& p : t.model->parameters()) {
    kept.push_back(p.grad());
    copies.push_back(p.grad().clone());
  }
  window.run(unevenPlan({8}, false), false);
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_TRUE(torch::equal(kept[i], copies[i])) << "parameter " << i;
    EXPECT_FALSE(t.model->parameters()[i].grad().is_same(kept[i])) << "parameter " << i;
  }
  // And the new gradients are the new window's alone.
  EXPECT_LE(t.maxDiffToGrad(t.meanGradient(torch::arange(8, torch::kLong))), 1e-12);
}

TEST(GradWindow, AWorkerWithNoShareHasZeroGradients) {
  TinyLinear t(37);
  GradWindow window(*t.model, t.data, torch::kCPU, torch::kFloat64);
  window.run(unevenPlan({16}, false), false);
  WindowPlan none;
  none.shard = true;
  none.samples = 5;
  none.window_batches = 1;
  const WindowResult r = window.run(none, true);
  for (const auto& p : t.model->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().abs().max().item<double>(), 0.0);
  }
  EXPECT_EQ(r.loss_sum, 0.0);
  EXPECT_EQ(r.measured, 0.0);
}

TEST(GradWindow, HostSquaredNormMatchesFloat64Sums) {
  // Lengths around the 16 lanes and 4,096-element blocks, the MLP 784-256-10's largest
  // gradient and a million; magnitudes spread over e^±9. float32 within 1e-6, float64 1e-12.
  torch::manual_seed(11);
  double worst = 0;
  for (const int64_t n : {1, 15, 16, 17, 4095, 4096, 4097, 200704, 1048579}) {
    const torch::Tensor x =
        torch::randn({n}, torch::kFloat64) * torch::exp(3 * torch::randn({n}, torch::kFloat64));
    const torch::Tensor x32 = x.to(torch::kFloat32);
    const double truth = x32.to(torch::kFloat64).pow(2).sum().item<double>();
    const double error = std::abs(hostSquaredNorm(x32) - truth) / truth;
    worst = std::max(worst, error);
    EXPECT_LE(error, 1e-6) << n << " elements";
    EXPECT_NEAR(hostSquaredNorm(x), x.pow(2).sum().item<double>(), 1e-12 * truth) << n;
  }
  std::printf("largest relative error in float32: %.2g\n", worst);
  EXPECT_EQ(hostSquaredNorm(torch::zeros({0})), 0.0);
  // A view that is not contiguous: a transposed matrix.
  const torch::Tensor m = torch::randn({300, 70});
  EXPECT_NEAR(hostSquaredNorm(m.t()), m.to(torch::kFloat64).pow(2).sum().item<double>(),
              1e-6 * m.to(torch::kFloat64).pow(2).sum().item<double>());
}

// hostSquaredNorm's float32 rule written out one element at a time (grad_window.cpp): 16 lanes
// of float over blocks of 4,096 elements, the lanes added in double in order, the rest one by
// one in double.
double squaresByTheRule(const float* x, int64_t n) {
  double total = 0;
  int64_t i = 0;
  for (; i + 4096 <= n; i += 4096) {
    float lane[16] = {};
    for (int64_t e = 0; e < 4096; ++e) {
      const float square = x[i + e] * x[i + e];
      lane[e % 16] = lane[e % 16] + square;
    }
    for (const float v : lane) total += v;
  }
  for (; i < n; ++i) total += static_cast<double>(x[i]) * x[i];
  return total;
}

TEST(GradWindow, HostSquaredNormFollowsItsRuleToTheBit) {
  // The same bits as the rule whatever the length (no block, one, several, each with and
  // without a tail), also on a view that starts off a 64-byte line.
  torch::manual_seed(12);
  for (const int64_t n : {0, 1, 4095, 4096, 4097, 3 * 4096 + 7, 4 * 4096, 4 * 4096 + 1,
                          9 * 4096 + 4095, 200704, 1048579}) {
    const torch::Tensor x = torch::randn({n + 3}) * torch::exp(3 * torch::randn({n + 3}));
    for (const int64_t offset : {0, 3}) {
      const torch::Tensor view = x.narrow(0, offset, n);
      EXPECT_EQ(hostSquaredNorm(view), squaresByTheRule(view.data_ptr<float>(), n))
          << n << " elements at offset " << offset;
    }
  }
}

TEST(GradWindow, Float32NoiseSumsMatchFloat64Truth) {
  // The squared norms of float32 gradients over 2,600 weights (MLP 64-40-2): within 1e-5 of
  // the same gradients summed in float64.
  torch::manual_seed(5);
  Dataset data;
  data.name = "blobs";
  data.task = Task::kClassification;
  data.num_outputs = 2;
  data.sample_shape = {64};
  data.train_x = torch::randn({64, 64});
  data.train_y = torch::randint(2, {64}, torch::kLong);
  auto model = makeModelFactory("mlp:40", {64}, 2, 7)->create();
  model->to(torch::kCPU, torch::kFloat32);
  GradWindow window(*model, data, torch::kCPU, torch::kFloat32);
  const WindowPlan plan = unevenPlan({16, 16, 16, 16}, false);
  const WindowResult r = window.run(plan, true);
  ASSERT_TRUE(r.has_noise);

  // The same mean gradients by autograd in float64, from a float64 copy of the weights.
  auto reference = makeModelFactory("mlp:40", {64}, 2, 7)->create();
  reference->to(torch::kCPU, torch::kFloat64);
  {
    torch::NoGradGuard g;
    auto from = model->parameters();
    auto to = reference->parameters();
    for (size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  }
  auto meanGradSq = [&](const torch::Tensor& rows) {
    for (auto& p : reference->parameters()) p.mutable_grad().reset();
    const torch::Tensor out =
        reference->forward(data.train_x.index_select(0, rows).to(torch::kFloat64));
    torch::nn::functional::cross_entropy(out, data.train_y.index_select(0, rows)).backward();
    double sq = 0;
    for (const auto& p : reference->parameters()) sq += p.grad().pow(2).sum().item<double>();
    return sq;
  };
  double small = 0;
  for (const auto& mb : plan.micro_batches) small += meanGradSq(mb) / 4.0;
  const double big = meanGradSq(torch::arange(64, torch::kLong));
  EXPECT_NEAR(r.g_small_sq, small, 1e-5 * small);
  EXPECT_NEAR(r.g_big_sq, big, 1e-5 * big);
  EXPECT_NEAR(r.grad_sq, big, 1e-5 * big);
}

}  // namespace
}  // namespace accumlab
