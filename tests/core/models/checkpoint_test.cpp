// A checkpoint restores model and optimizer together: training resumes bit for bit.
#include "models/checkpoint.h"

#include <gtest/gtest.h>

#include "../data/temp_files.h"
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

TEST(Checkpoint, ResumesModelAndMomentumExactly) {
  testing::TempDir dir;
  auto factory = makeModelFactory("cnn_bn", {1, 12, 12}, 3, 5);
  torch::manual_seed(1);
  const torch::Tensor x = torch::randn({6, 1, 12, 12});
  const torch::Tensor y = torch::tensor({0, 1, 2, 0, 1, 2}, torch::kLong);
  const auto options = torch::optim::SGDOptions(0.1).momentum(0.9);

  auto original = factory->create();
  torch::optim::SGD opt(original->parameters(), options);
  step(*original, opt, x, y);
  saveCheckpoint(dir / "ckpt.pt", *original, opt);
  step(*original, opt, x, y);

  auto resumed = factory->create();
  torch::optim::SGD resumed_opt(resumed->parameters(), options);
  loadCheckpoint(dir / "ckpt.pt", *resumed, resumed_opt);
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

TEST(Checkpoint, AnotherModelsCheckpointIsAnInputError) {
  testing::TempDir dir;
  auto small = makeModelFactory("mlp:8", {4}, 2, 1)->create();
  torch::optim::SGD opt(small->parameters(), torch::optim::SGDOptions(0.1));
  saveCheckpoint(dir / "small.pt", *small, opt);
  auto big = makeModelFactory("mlp:16", {4}, 2, 1)->create();
  torch::optim::SGD big_opt(big->parameters(), torch::optim::SGDOptions(0.1));
  try {
    loadCheckpoint(dir / "small.pt", *big, big_opt);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("of shape [8x4], but the model's is [16x4]"),
              std::string::npos)
        << e.what();
  }
  testing::writeText(dir / "junk.pt", "junk");
  EXPECT_THROW(loadCheckpoint(dir / "junk.pt", *big, big_opt), InputError);
}

}  // namespace
}  // namespace accumlab
