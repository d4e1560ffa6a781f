// SPDX-License-Identifier: GPL-3.0-or-later
// A model's tensors and its optimizer's state, as the run's checkpoint keeps them per arm:
// training resumes bit for bit, and another model's state is refused in one sentence.
#include "models/model_state.h"

#include <gtest/gtest.h>

#include <sstream>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

// One SGD-with-momentum step on a fixed batch.
void step(Model& model, torch::optim::Optimizer& opt, const torch::Tensor& x,
          const torch::Tensor& y) {
  opt.zero_grad();
  torch::nn::functional::cross_entropy(model.forward(x), y).backward();
  opt.step();
}

/// The archive bytes of `model`'s tensors under "arm".
std::string savedTensors(Model& model) {
  torch::serialize::OutputArchive archive;
  writeModelTensors(archive, "arm", model);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

void restoreTensors(const std::string& bytes, Model& model) {
  std::istringstream in(bytes);
  torch::serialize::InputArchive archive;
  archive.load_from(in);
  readModelTensors(archive, "arm", "state.pt", model);
}

TEST(ModelState, ResumesModelAndMomentumExactly) {
  auto factory = makeModelFactory("cnn_bn", {1, 12, 12}, 3, 5);
  torch::manual_seed(1);
  const torch::Tensor x = torch::randn({6, 1, 12, 12});
  const torch::Tensor y = torch::tensor({0, 1, 2, 0, 1, 2}, torch::kLong);
  const auto options = torch::optim::SGDOptions(0.1).momentum(0.9);

  auto original = factory->create();
  torch::optim::SGD opt(original->parameters(), options);
  step(*original, opt, x, y);
  const std::string tensors = savedTensors(*original);
  const std::string optimizer = optimizerStateBytes(opt);
  step(*original, opt, x, y);

  auto resumed = factory->create();
  torch::optim::SGD resumed_opt(resumed->parameters(), options);
  restoreTensors(tensors, *resumed);
  loadOptimizerStateBytes(resumed_opt, optimizer, "state.pt");
  step(*resumed, resumed_opt, x, y);
  // Without the momentum buffers the second step would differ; without the BatchNorm
  // running statistics the buffers would.
  for (size_t i = 0; i < original->parameters().size(); ++i) {
    EXPECT_TRUE(resumed->parameters()[i].equal(original->parameters()[i])) << "parameter " << i;
  }
  for (size_t i = 0; i < original->buffers().size(); ++i) {
    EXPECT_TRUE(resumed->buffers()[i].equal(original->buffers()[i])) << "buffer " << i;
  }
}

TEST(ModelState, AnotherModelsStateIsAnInputError) {
  auto small = makeModelFactory("mlp:8", {4}, 2, 1)->create();
  auto big = makeModelFactory("mlp:16", {4}, 2, 1)->create();
  try {
    restoreTensors(savedTensors(*small), *big);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("state.pt has arm.param 0 of shape [8x4], but the "
                                         "model's is [16x4]"),
              std::string::npos)
        << e.what();
  }
  torch::optim::SGD big_opt(big->parameters(), torch::optim::SGDOptions(0.1));
  EXPECT_THROW(loadOptimizerStateBytes(big_opt, "junk", "state.pt"), InputError);
}

}  // namespace
}  // namespace accumlab
