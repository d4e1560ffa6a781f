// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/builtin_nets.h"

#include <cmath>
#include <limits>

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

// Forward and backward FLOPs of a layer whose forward is `forward` FLOPs: the backward's
// weight gradient is a product of the same size, and so is the gradient at its input, which
// the first layer does not need (its input is data).
double trainingFlops(double forward, bool first) { return forward * (first ? 2 : 3); }

}  // namespace

double MlpImpl::flopsPerSample() const {
  // A Linear layer's product is in·out multiply-adds per sample; the bias, ReLU and loss add
  // O(out) and are not counted.
  double flops = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& w = layers[i]->weight;
    flops += trainingFlops(2.0 * static_cast<double>(w.size(0) * w.size(1)), i == 0);
  }
  return flops;
}

CeilingLayer MlpImpl::ceilingLayer() const {
  CeilingLayer f;
  f.kind = CeilingLayer::Kind::kLinear;
  // The largest product: on the spirals' 2-128-128-2 the first layer is the smallest, and a
  // ceiling of it would read as several times what the run can reach.
  for (const auto& layer : layers) {
    const int64_t in = layer->weight.size(1), out = layer->weight.size(0);
    if (in * out > f.in * f.out) {
      f.in = in;
      f.out = out;
    }
  }
  return f;
}

namespace {
constexpr int64_t kConv1Channels = 6;
constexpr int64_t kConv2Channels = 16;
constexpr int64_t kKernel = 5;

// Spatial size after conv1 (padding 2, keeps size), pool, conv2 (no padding), pool.
int64_t featureSize(int64_t s) { return ((s / 2) - kKernel + 1) / 2; }
}  // namespace

CnnImpl::CnnImpl(int64_t channels, int64_t height_, int64_t width_, int64_t outputs, bool bn)
    : batch_norm(bn), height(height_), width(width_) {
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

double CnnImpl::flopsPerSample() const {
  // A convolution's product is in_channels·k²·out_channels multiply-adds per output pixel;
  // pooling, ReLU, BatchNorm, biases and the loss are not counted.
  const auto conv = [](const torch::nn::Conv2d& c, int64_t h, int64_t w) {
    const auto& k = c->weight;  // [out, in, kh, kw]
    return 2.0 * static_cast<double>(k.numel() * h * w);
  };
  const auto linear = [](const torch::nn::Linear& l) {
    return 2.0 * static_cast<double>(l->weight.numel());
  };
  const int64_t h2 = height / 2 - kKernel + 1, w2 = width / 2 - kKernel + 1;
  return trainingFlops(conv(conv1, height, width), true) +
         trainingFlops(conv(conv2, h2, w2), false) + trainingFlops(linear(fc1), false) +
         trainingFlops(linear(fc2), false) + trainingFlops(linear(head), false);
}

CeilingLayer CnnImpl::ceilingLayer() const {
  CeilingLayer f;
  f.kind = CeilingLayer::Kind::kConvolution;
  f.in = conv1->weight.size(1);
  f.out = conv1->weight.size(0);
  f.height = height;
  f.width = width;
  f.kernel = kKernel;
  f.padding = 2;
  return f;
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

CharGruImpl::CharGruImpl(int64_t vocabulary, int64_t embedding, int64_t hidden) {
  embed = register_module("embed", torch::nn::Embedding(vocabulary, embedding));
  gru = register_module("gru",
                        torch::nn::GRU(torch::nn::GRUOptions(embedding, hidden).batch_first(true)));
  head = register_module("head", torch::nn::Linear(hidden, vocabulary));
}

torch::Tensor CharGruImpl::forward(torch::Tensor x) {
  torch::Tensor h = std::get<0>(gru->forward(embed->forward(x)));
  return head->forward(h);
}

CharTransformerImpl::CharTransformerImpl(int64_t vocabulary, int64_t width, int64_t heads_,
                                         int64_t layers, int64_t positions)
    : heads(heads_) {
  embed = register_module("embed", torch::nn::Embedding(vocabulary, width));
  position = register_module("position", torch::nn::Embedding(positions, width));
  for (int64_t i = 0; i < layers; ++i) {
    const std::string n = std::to_string(i);
    norm1.push_back(
        register_module("norm1_" + n, torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}))));
    qkv.push_back(register_module("qkv" + n, torch::nn::Linear(width, 3 * width)));
    proj.push_back(register_module("proj" + n, torch::nn::Linear(width, width)));
    norm2.push_back(
        register_module("norm2_" + n, torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}))));
    up.push_back(register_module("up" + n, torch::nn::Linear(width, 4 * width)));
    down.push_back(register_module("down" + n, torch::nn::Linear(4 * width, width)));
  }
  norm_out =
      register_module("norm_out", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  head = register_module("head", torch::nn::Linear(width, vocabulary));
}

torch::Tensor CharTransformerImpl::forward(torch::Tensor x) {
  const int64_t b = x.size(0), t = x.size(1);
  torch::Tensor h =
      embed->forward(x) + position->forward(torch::arange(t, x.options().dtype(torch::kLong)));
  const int64_t width = h.size(2), d = width / heads;
  // Position i attends to positions ≤ i: everything above the diagonal is masked out.
  const torch::Tensor future = torch::ones({t, t}, x.options().dtype(torch::kBool)).triu(1);
  for (size_t i = 0; i < qkv.size(); ++i) {
    auto parts = qkv[i]->forward(norm1[i]->forward(h)).chunk(3, 2);
    auto split = [&](const torch::Tensor& p) { return p.view({b, t, heads, d}).transpose(1, 2); };
    const torch::Tensor q = split(parts[0]), k = split(parts[1]), v = split(parts[2]);
    torch::Tensor scores =
        torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(d));
    scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
    torch::Tensor attended = torch::matmul(torch::softmax(scores, -1), v);
    h = h + proj[i]->forward(attended.transpose(1, 2).reshape({b, t, width}));
    h = h + down[i]->forward(torch::gelu(up[i]->forward(norm2[i]->forward(h))));
  }
  return head->forward(norm_out->forward(h));
}

}  // namespace accumlab
