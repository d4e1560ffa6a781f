// SPDX-License-Identifier: GPL-3.0-or-later
// SGD's step in one pass (train/sgd_step.h) against LibTorch's own torch::optim::SGD: the same
// weights and momentum buffers to the bit, so that no figure of a run moves.
#include "train/sgd_step.h"

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

namespace accumlab {
namespace {

// The MLP 784-256-10's parameters and a few shapes whose sizes leave ATen's vectorised loop a
// scalar tail.
std::vector<torch::Tensor> parameters(torch::Dtype dtype) {
  std::vector<torch::Tensor> params;
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{256, 784}, {256}, {10, 256}, {10}, {3, 7}, {1}}) {
    params.push_back(torch::randn(shape, torch::TensorOptions(dtype)).requires_grad_());
  }
  return params;
}

std::vector<torch::Tensor> copies(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

void setGradients(std::vector<torch::Tensor>& a, std::vector<torch::Tensor>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    const torch::Tensor g = torch::randn_like(a[i]);
    a[i].mutable_grad() = g.clone();
    b[i].mutable_grad() = g.clone();
  }
}

torch::Tensor momentumBuffer(torch::optim::SGD& sgd, const torch::Tensor& p) {
  auto& state = sgd.state();
  const auto it = state.find(c10::guts::to_string(p.unsafeGetTensorImpl()));
  if (it == state.end()) return {};
  return static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer();
}

void expectSame(const std::vector<torch::Tensor>& theirs, const std::vector<torch::Tensor>& ours,
                torch::optim::SGD& reference, torch::optim::SGD& fused, const std::string& what) {
  for (size_t i = 0; i < theirs.size(); ++i) {
    EXPECT_TRUE(torch::equal(theirs[i], ours[i]))
        << what << ", parameter " << i << ", max |Δ| "
        << (theirs[i] - ours[i]).abs().max().item<double>();
    const torch::Tensor a = momentumBuffer(reference, theirs[i]);
    const torch::Tensor b = momentumBuffer(fused, ours[i]);
    ASSERT_EQ(a.defined(), b.defined()) << what << ", parameter " << i;
    if (a.defined()) {
      EXPECT_TRUE(torch::equal(a, b)) << what << ", buffer " << i;
    }
  }
}

struct Setting {
  double momentum, weight_decay;
  bool nesterov;
};

// The engine's step: the fused one, or LibTorch's where the probe found ATen rounding otherwise
// (under ATEN_CPU_CAPABILITY=default its additions round twice).
void engineStep(torch::optim::SGD& sgd, torch::Dtype dtype) {
  const bool fast = fusedSgdMatchesLibTorch(dtype);
  ASSERT_EQ(fusedSgdStep(sgd), fast);
  if (!fast) sgd.step();
}

TEST(FusedSgdStep, MatchesLibTorchBitForBit) {
  torch::manual_seed(3);
  for (const torch::Dtype dtype : {torch::kFloat32, torch::kFloat64}) {
    if (!fusedSgdMatchesLibTorch(dtype)) {
      std::cout << "ATen rounds SGD's additions otherwise here: LibTorch's step runs\n";
    }
    for (const Setting s :
         {Setting{0.9, 0, false}, Setting{0.9, 5e-4, false}, Setting{0.9, 0, true},
          Setting{0.8, 1e-3, true}, Setting{0, 0, false}, Setting{0, 1e-2, false}}) {
      const std::string what = std::string(dtype == torch::kFloat32 ? "float32" : "float64") +
                               ", momentum " + std::to_string(s.momentum) + ", decay " +
                               std::to_string(s.weight_decay) + (s.nesterov ? ", nesterov" : "");
      std::vector<torch::Tensor> theirs = parameters(dtype);
      std::vector<torch::Tensor> ours = copies(theirs);
      const auto options = torch::optim::SGDOptions(0.05)
                               .momentum(s.momentum)
                               .weight_decay(s.weight_decay)
                               .nesterov(s.nesterov);
      torch::optim::SGD reference(theirs, options), fused(ours, options);
      for (int step = 0; step < 4; ++step) {
        // The LR moves between steps, as a schedule moves it.
        for (auto* o : {&reference, &fused}) {
          o->param_groups()[0].options().set_lr(0.05 * (1 + step) / 3.0);
        }
        setGradients(theirs, ours);
        reference.step();
        engineStep(fused, dtype);
        expectSame(theirs, ours, reference, fused, what + ", step " + std::to_string(step));
      }
    }
  }
}

// The momentum buffers are the optimizer's own state: LibTorch's step and the fused one take
// turns on one optimizer (as a checkpoint saved by one build and resumed by another would)
// and give what LibTorch's alone gives.
TEST(FusedSgdStep, SharesLibTorchsState) {
  torch::manual_seed(4);
  std::vector<torch::Tensor> theirs = parameters(torch::kFloat32);
  std::vector<torch::Tensor> ours = copies(theirs);
  const auto options = torch::optim::SGDOptions(0.1).momentum(0.9);
  torch::optim::SGD reference(theirs, options), mixed(ours, options);
  for (int step = 0; step < 6; ++step) {
    setGradients(theirs, ours);
    reference.step();
    if (step % 2 == 0) {
      mixed.step();
    } else {
      engineStep(mixed, torch::kFloat32);
    }
    expectSame(theirs, ours, reference, mixed, "step " + std::to_string(step));
  }
}

TEST(FusedSgdStep, LeavesOtherOptimizersAndTensorsToLibTorch) {
  std::vector<torch::Tensor> params = parameters(torch::kFloat32);
  std::vector<torch::Tensor> before = copies(params);
  for (auto& p : params) p.mutable_grad() = torch::ones_like(p);
  torch::optim::Adam adam(params, torch::optim::AdamOptions(0.1));
  EXPECT_FALSE(fusedSgdStep(adam));
  // A gradient that is not contiguous.
  torch::optim::SGD sgd(params, torch::optim::SGDOptions(0.1).momentum(0.9));
  params[0].mutable_grad() = torch::ones({784, 256}).t();
  EXPECT_FALSE(fusedSgdStep(sgd));
  for (size_t i = 0; i < params.size(); ++i) EXPECT_TRUE(torch::equal(params[i], before[i]));
  EXPECT_TRUE(sgd.state().empty());
}

}  // namespace
}  // namespace accumlab
