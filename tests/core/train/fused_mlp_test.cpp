// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in MLP's own forward and backward (train/fused_mlp.h) against autograd: the same
// gradients, losses and noise norms to the bit, so that no figure of a run moves.
#include "train/fused_mlp.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/model.h"
#include "tiny_linear.h"
#include "train/grad_window.h"

namespace accumlab {
namespace {

using testing::unevenPlan;

struct FusedCase {
  std::string model;
  Task task;
  torch::Dtype dtype;
  std::vector<int64_t> sizes;
};

Dataset caseData(const FusedCase& c, int64_t n) {
  torch::manual_seed(17);
  Dataset data;
  data.name = "random";
  data.task = c.task;
  data.num_outputs = c.task == Task::kClassification ? 10 : 3;
  data.sample_shape = {4, 25};  // flattened by the model
  data.train_x = torch::randn({n, 4, 25});
  data.train_y = c.task == Task::kClassification ? torch::randint(10, {n}, torch::kLong)
                                                 : torch::randn({n, 3});
  return data;
}

// Runs one window of `c` through the fused path and through autograd from the same weights,
// and expects every gradient bit and every sum of the window's result to be equal.
void expectSameAsAutograd(const FusedCase& c) {
  int64_t n = 0;
  for (int64_t s : c.sizes) n += s;
  const Dataset data = caseData(c, n);
  auto model = makeModelFactory(c.model, {4, 25}, data.num_outputs, 5)->create();
  model->to(torch::kCPU, c.dtype);
  GradWindow window(*model, data, torch::kCPU, c.dtype);
  ASSERT_TRUE(window.fused());
  const WindowPlan plan = unevenPlan(c.sizes, false);
  for (const bool noise : {false, true}) {
    const WindowResult fast = window.run(plan, noise);
    std::vector<torch::Tensor> fused_grads;
    for (const auto& p : model->parameters()) fused_grads.push_back(p.grad());
    const WindowResult slow = window.run(plan, noise, /*autograd=*/true);
    const auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_TRUE(torch::equal(fused_grads[i], params[i].grad()))
          << c.model << " parameter " << i << ", noise " << noise << ", max |Δ| "
          << (fused_grads[i] - params[i].grad()).abs().max().item<double>();
    }
    EXPECT_EQ(fast.loss_sum, slow.loss_sum);
    EXPECT_EQ(fast.grad_sq, slow.grad_sq);
    EXPECT_EQ(fast.small_sq_sum, slow.small_sq_sum);
    EXPECT_EQ(fast.has_noise, slow.has_noise);
    EXPECT_EQ(fast.mb_loss_var, slow.mb_loss_var);
  }
}

TEST(FusedMlp, MatchesAutogradBitForBit) {
  for (const torch::Dtype dtype : {torch::kFloat32, torch::kFloat64}) {
    SCOPED_TRACE(dtype == torch::kFloat32 ? "float32" : "float64");
    expectSameAsAutograd({"mlp:64,32", Task::kClassification, dtype, {32, 32, 32, 7}});
    expectSameAsAutograd({"mlp:64,32", Task::kClassification, dtype, {8, 8, 8, 8, 8, 8, 8, 8}});
    expectSameAsAutograd({"mlp:256", Task::kClassification, dtype, {1, 1, 1}});
    expectSameAsAutograd({"mlp:256", Task::kClassification, dtype, {128, 128}});
    expectSameAsAutograd({"logreg", Task::kClassification, dtype, {16, 16}});
    expectSameAsAutograd({"mlp:7,5,3", Task::kRegression, dtype, {8, 8, 3}});
  }
}

TEST(FusedMlp, LargeMicroBatchesStayWithinRounding) {
  // A micro-batch longer than one of the GEMM's blocks of its inner dimension may add its
  // product into .grad block by block: then not the bits of one addition, but rounding.
  const FusedCase c{"mlp:256", Task::kClassification, torch::kFloat32, {700, 700}};
  const Dataset data = caseData(c, 1400);
  auto model = makeModelFactory(c.model, {4, 25}, 10, 5)->create();
  model->to(torch::kCPU, torch::kFloat32);
  GradWindow window(*model, data, torch::kCPU, torch::kFloat32);
  const WindowPlan plan = unevenPlan(c.sizes, false);
  window.run(plan, false);
  std::vector<torch::Tensor> fused;
  for (const auto& p : model->parameters()) fused.push_back(p.grad());
  window.run(plan, false, /*autograd=*/true);
  const auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    const double scale = params[i].grad().abs().max().item<double>();
    EXPECT_LE((fused[i] - params[i].grad()).abs().max().item<double>(), 1e-6 * scale);
  }
}

TEST(FusedMlp, OnlyTheBuiltInMlpOnTheCpuIsFused) {
  testing::TinyLinear linear(8);  // logreg: a stack of one layer
  EXPECT_TRUE(GradWindow(*linear.model, linear.data, torch::kCPU, torch::kFloat64).fused());
  auto cnn = makeModelFactory("cnn", {1, 28, 28}, 10, 1)->create();
  Dataset images;
  images.sample_shape = {1, 28, 28};
  EXPECT_FALSE(GradWindow(*cnn, images, torch::kCPU, torch::kFloat32).fused());
  EXPECT_TRUE(cnn->reluStack().empty());
}

TEST(FusedMlp, FlopsPerSampleCountsForwardAndBackward) {
  // MLP 784-256-10: forward 2·(784·256 + 256·10), the weight gradients as much again, and
  // the gradient at the second layer's input 2·256·10.
  auto mlp = makeModelFactory("mlp:256", {784}, 10, 1)->create();
  EXPECT_DOUBLE_EQ(mlp->flopsPerSample(), 2.0 * (3 * (784 * 256 + 256 * 10) - 784 * 256));
  // The CNN on 1x28x28: conv1 6@5x5 on 28x28, conv2 16@5x5 on 10x10, 400-120-84-10.
  auto cnn = makeModelFactory("cnn", {1, 28, 28}, 10, 1)->create();
  const double conv1 = 2.0 * 6 * 25 * 28 * 28, conv2 = 2.0 * 16 * 6 * 25 * 10 * 10;
  const double fc = 2.0 * (400 * 120 + 120 * 84 + 84 * 10);
  EXPECT_DOUBLE_EQ(cnn->flopsPerSample(), 2 * conv1 + 3 * (conv2 + fc));
}

}  // namespace
}  // namespace accumlab
