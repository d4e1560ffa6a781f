#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace accumlab {

/// Base of the built-in networks: a module with a single-tensor forward.
struct NetImpl : torch::nn::Module {
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};

/// Flatten, then Linear+ReLU per hidden size, then a Linear head. No hidden sizes = logreg.
struct MlpImpl : NetImpl {
  MlpImpl(int64_t inputs, const std::vector<int64_t>& hidden, int64_t outputs);
  torch::Tensor forward(torch::Tensor x) override;

  std::vector<torch::nn::Linear> layers;
};
TORCH_MODULE(Mlp);

/// LeNet-like: conv5(6)-pool-conv5(16)-pool-fc120-fc84-head, optional BatchNorm after each
/// convolution (which makes a sample's output depend on its batch).
struct CnnImpl : NetImpl {
  CnnImpl(int64_t channels, int64_t height, int64_t width, int64_t outputs, bool batch_norm);
  torch::Tensor forward(torch::Tensor x) override;

  bool batch_norm;
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(Cnn);

}  // namespace accumlab
