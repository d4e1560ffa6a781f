#include "models/builtin_nets.h"

namespace accumlab {

MlpImpl::MlpImpl(int64_t inputs, const std::vector<int64_t>& hidden, int64_t outputs) {
  int64_t in = inputs;
  for (size_t i = 0; i <= hidden.size(); ++i) {
    const int64_t out = i < hidden.size() ? hidden[i] : outputs;
    layers.push_back(register_module("fc" + std::to_string(i), torch::nn::Linear(in, out)));
    in = out;
  }
}

torch::Tensor MlpImpl::forward(torch::Tensor x) {
  x = x.flatten(1);
  for (size_t i = 0; i < layers.size(); ++i) {
    x = layers[i]->forward(x);
    if (i + 1 < layers.size()) x = torch::relu(x);
  }
  return x;
}

namespace {
constexpr int64_t kConv1Channels = 6;
constexpr int64_t kConv2Channels = 16;
constexpr int64_t kKernel = 5;

// Spatial size after conv1 (padding 2, keeps size), pool, conv2 (no padding), pool.
int64_t featureSize(int64_t s) { return ((s / 2) - kKernel + 1) / 2; }
}  // namespace

CnnImpl::CnnImpl(int64_t channels, int64_t height, int64_t width, int64_t outputs, bool bn)
    : batch_norm(bn) {
  conv1 = register_module(
      "conv1",
      torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, kConv1Channels, kKernel).padding(2)));
  conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(
                                       kConv1Channels, kConv2Channels, kKernel)));
  if (batch_norm) {
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(kConv1Channels));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(kConv2Channels));
  }
  const int64_t flat = kConv2Channels * featureSize(height) * featureSize(width);
  fc1 = register_module("fc1", torch::nn::Linear(flat, 120));
  fc2 = register_module("fc2", torch::nn::Linear(120, 84));
  head = register_module("head", torch::nn::Linear(84, outputs));
}

torch::Tensor CnnImpl::forward(torch::Tensor x) {
  if (x.dim() == 3) x = x.unsqueeze(1);  // [N, H, W] images have one channel
  x = conv1->forward(x);
  if (batch_norm) x = bn1->forward(x);
  x = torch::max_pool2d(torch::relu(x), 2);
  x = conv2->forward(x);
  if (batch_norm) x = bn2->forward(x);
  x = torch::max_pool2d(torch::relu(x), 2);
  x = torch::relu(fc1->forward(x.flatten(1)));
  x = torch::relu(fc2->forward(x));
  return head->forward(x);
}

}  // namespace accumlab
