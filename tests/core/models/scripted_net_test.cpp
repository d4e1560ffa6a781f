// SPDX-License-Identifier: GPL-3.0-or-later
// A built-in model written out as TorchScript (Model::saveScripted, core/models/scripted_net.cpp):
// loaded back with LibTorch's loader alone, it holds the model's weights under their own names
// and its forward gives the model's outputs.
#include "models/scripted_net.h"

#include <gtest/gtest.h>

#include <sstream>

#include "models/model.h"

namespace accumlab {
namespace {

struct ScriptedCase {
  const char* spec;
  std::vector<int64_t> shape;  ///< one sample's
  bool text;
  /// Largest output difference allowed: 0 where each op is the engine's own; the transformer's
  /// attention may round differently in float32 in TorchScript's interpreter.
  double tolerance;
};

/// The model's outputs for `x` in eval mode, and those of its TorchScript archive, loaded back.
std::pair<torch::Tensor, torch::Tensor> bothOutputs(Model& model, const torch::Tensor& x,
                                                    torch::jit::Module* loaded = nullptr) {
  torch::NoGradGuard no_grad;
  model.setTraining(false);
  std::stringstream archive;
  model.saveScripted(archive);
  torch::jit::Module m = torch::jit::load(archive);
  if (loaded) *loaded = m;
  return {model.forward(x), m.forward({x}).toTensor()};
}

TEST(ScriptedNet, EveryBuiltInModelGivesItsOwnOutputsAsTorchScript) {
  const std::vector<ScriptedCase> cases = {
      {"logreg", {2}, false, 0.0},      {"mlp:16,8", {1, 12, 12}, false, 0.0},
      {"cnn", {1, 28, 28}, false, 0.0}, {"cnn_bn", {3, 17, 13}, false, 0.0},
      {"charlm:24", {40}, true, 0.0},   {"charlm-transformer", {40}, true, 1e-5},
  };
  for (const ScriptedCase& c : cases) {
    SCOPED_TRACE(c.spec);
    const int64_t outputs = c.text ? 256 : 5;
    auto model = makeModelFactory(c.spec, c.shape, outputs, 7, c.text)->create();
    auto sample = [&](int64_t n) {
      if (c.text) return torch::randint(256, {n, 17}, torch::kLong);
      std::vector<int64_t> batch = {n};
      batch.insert(batch.end(), c.shape.begin(), c.shape.end());
      return torch::rand(batch);
    };
    {
      // A forward pass in training mode moves cnn_bn's running statistics off their start.
      torch::NoGradGuard no_grad;
      model->setTraining(true);
      model->forward(sample(8));
    }
    const torch::Tensor x = sample(5);
    torch::jit::Module loaded;
    const auto [ours, scripted] = bothOutputs(*model, x, &loaded);
    ASSERT_EQ(ours.sizes(), scripted.sizes());
    const double diff = (ours - scripted).abs().max().item<double>();
    EXPECT_LE(diff, c.tolerance);
    // Every parameter under its name in the engine, to the bit.
    const auto params = model->parameters();
    size_t i = 0;
    for (const auto& p : loaded.named_parameters()) {
      ASSERT_LT(i, params.size());
      EXPECT_TRUE(torch::equal(p.value, params[i++].cpu())) << p.name;
    }
    EXPECT_EQ(i, params.size());
    EXPECT_FALSE(loaded.is_training()) << "saved in eval mode";
  }
}

TEST(ScriptedNet, Float64ModelsStayFloat64) {
  auto model = makeModelFactory("mlp:8", {4}, 3, 1)->create();
  model->to(torch::kCPU, torch::kFloat64);
  const torch::Tensor x = torch::rand({6, 4}, torch::kFloat64);
  const auto [ours, scripted] = bothOutputs(*model, x);
  EXPECT_EQ(scripted.scalar_type(), torch::kFloat64);
  EXPECT_TRUE(torch::equal(ours, scripted));
}

}  // namespace
}  // namespace accumlab
