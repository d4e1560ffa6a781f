// SPDX-License-Identifier: GPL-3.0-or-later
// The four window policies on a tiny linear model, against updates computed by hand.
#include <gtest/gtest.h>

#include "models/model.h"
#include "train/grad_window.h"
#include "train/window_plan.h"

namespace accumlab {
namespace {

// y = 2x on 5 samples, model w·x + b starting at w = b = 0, plain SGD with lr = 0.01.
// m = 2, K = 2: an epoch is one full window (4 samples) and a partial one (1 sample).
constexpr int64_t kSamples = 5;
constexpr double kLr = 0.01;

struct LineProblem {
  LineProblem() {
    data.name = "line";
    data.task = Task::kRegression;
    data.num_outputs = 1;
    data.sample_shape = {1};
    data.train_x = torch::tensor({1.0, 2.0, 3.0, 4.0, 5.0}, torch::kFloat64).unsqueeze(1);
    data.train_y = data.train_x * 2.0;
    model = makeModelFactory("logreg", {1}, 1, 1)->create();
    model->to(torch::kCPU, torch::kFloat64);
    torch::NoGradGuard g;
    for (auto& p : model->parameters()) p.zero_();
  }

  // Runs one epoch under `policy`; returns (w, b) after it and the number of updates.
  std::tuple<double, double, int> epoch(WindowPolicy policy) {
    SampleStream stream(kSamples, 5);
    GradWindow window(*model, data, torch::kCPU, torch::kFloat64);
    int updates = 0;
    while (stream.consumed() < kSamples) {
      const WindowPlan plan = planWindow(stream, 2, 2, policy, kSamples - stream.consumed());
      if (plan.dropped) continue;
      window.run(plan, false);
      torch::NoGradGuard g;
      for (auto& p : model->parameters()) p.sub_(kLr * p.grad());
      ++updates;
    }
    auto p = model->parameters();
    return {p[0].item<double>(), p[1].item<double>(), updates};
  }

  // Row order of the first epoch, as the stream draws it.
  static std::vector<double> order() {
    SampleStream stream(kSamples, 5);
    torch::Tensor rows = stream.take(kSamples);
    std::vector<double> xs;
    for (int64_t i = 0; i < kSamples; ++i)
      xs.push_back(static_cast<double>(rows[i].item<int64_t>() + 1));
    return xs;
  }

  Dataset data;
  std::unique_ptr<Model> model;
};

// One SGD step on the loss (1/c)·Σ_{x∈batch} (w·x + b − 2x)², with c the normaliser.
void step(double& w, double& b, const std::vector<double>& xs, double c) {
  double gw = 0, gb = 0;
  for (double x : xs) {
    const double r = w * x + b - 2 * x;
    gw += 2 * r * x / c;
    gb += 2 * r / c;
  }
  w -= kLr * gw;
  b -= kLr * gb;
}

TEST(WindowPolicy, FlushExactUpdatesWithTheTrueCount) {
  const auto x = LineProblem::order();
  double w = 0, b = 0;
  step(w, b, {x[0], x[1], x[2], x[3]}, 4);
  step(w, b, {x[4]}, 1);
  LineProblem s;
  const auto [gw, gb, n] = s.epoch(WindowPolicy::kFlushExact);
  EXPECT_EQ(n, 2);
  EXPECT_NEAR(gw, w, 1e-12);
  EXPECT_NEAR(gb, b, 1e-12);
}

TEST(WindowPolicy, FlushDivideByKUnderScalesThePartialWindow) {
  const auto x = LineProblem::order();
  double w = 0, b = 0;
  step(w, b, {x[0], x[1], x[2], x[3]}, 4);
  step(w, b, {x[4]}, 2);  // mean of one sample, divided by K = 2
  LineProblem s;
  const auto [gw, gb, n] = s.epoch(WindowPolicy::kFlushDivideByK);
  EXPECT_EQ(n, 2);
  EXPECT_NEAR(gw, w, 1e-12);
  EXPECT_NEAR(gb, b, 1e-12);
  LineProblem exact;
  EXPECT_GT(std::abs(std::get<0>(exact.epoch(WindowPolicy::kFlushExact)) - gw), 1e-3);
}

TEST(WindowPolicy, DropSkipsThePartialWindow) {
  const auto x = LineProblem::order();
  double w = 0, b = 0;
  step(w, b, {x[0], x[1], x[2], x[3]}, 4);
  LineProblem s;
  const auto [gw, gb, n] = s.epoch(WindowPolicy::kDrop);
  EXPECT_EQ(n, 1);
  EXPECT_NEAR(gw, w, 1e-12);
  EXPECT_NEAR(gb, b, 1e-12);
}

TEST(WindowPolicy, StreamCarriesTheWindowIntoTheNextEpoch) {
  // Two epochs (10 samples) under stream: windows of 4, 4 and a budget-end 2, the second
  // window made of the last sample of epoch 1 and the first three of epoch 2.
  SampleStream order_stream(kSamples, 5);
  torch::Tensor rows = order_stream.take(2 * kSamples);
  std::vector<double> x;
  for (int64_t i = 0; i < 2 * kSamples; ++i)
    x.push_back(static_cast<double>(rows[i].item<int64_t>() + 1));
  double w = 0, b = 0;
  step(w, b, {x[0], x[1], x[2], x[3]}, 4);
  step(w, b, {x[4], x[5], x[6], x[7]}, 4);
  step(w, b, {x[8], x[9]}, 2);

  LineProblem s;
  SampleStream stream(kSamples, 5);
  GradWindow window(*s.model, s.data, torch::kCPU, torch::kFloat64);
  int updates = 0;
  while (stream.consumed() < 2 * kSamples) {
    window.run(planWindow(stream, 2, 2, WindowPolicy::kStream, 2 * kSamples - stream.consumed()),
               false);
    torch::NoGradGuard g;
    for (auto& p : s.model->parameters()) p.sub_(kLr * p.grad());
    ++updates;
  }
  EXPECT_EQ(updates, 3);
  auto p = s.model->parameters();
  EXPECT_NEAR(p[0].item<double>(), w, 1e-12);
  EXPECT_NEAR(p[1].item<double>(), b, 1e-12);
}

}  // namespace
}  // namespace accumlab
