// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "models/model.h"

namespace accumlab {

/// Base of the built-in networks: a module with a single-tensor forward.
struct NetImpl : torch::nn::Module {
  virtual torch::Tensor forward(torch::Tensor x) = 0;
  /// Floating-point operations of one sample's forward and backward (Model::flopsPerSample),
  /// 0 when not counted.
  virtual double flopsPerSample() const { return 0; }
  /// The layer the throughput ceiling times (Model::ceilingLayer).
  virtual CeilingLayer ceilingLayer() const { return {}; }
};

/// Flatten, then Linear+ReLU per hidden size, then a Linear head. No hidden sizes = logreg.
struct MlpImpl : NetImpl {
  MlpImpl(int64_t inputs, const std::vector<int64_t>& hidden, int64_t outputs);
  torch::Tensor forward(torch::Tensor x) override;
  double flopsPerSample() const override;
  CeilingLayer ceilingLayer() const override;

  std::vector<torch::nn::Linear> layers;
};
TORCH_MODULE(Mlp);

/// LeNet-like: conv5(6)-pool-conv5(16)-pool-fc120-fc84-head, optional BatchNorm after each
/// convolution (which makes a sample's output depend on its batch).
struct CnnImpl : NetImpl {
  CnnImpl(int64_t channels, int64_t height, int64_t width, int64_t outputs, bool batch_norm);
  torch::Tensor forward(torch::Tensor x) override;
  double flopsPerSample() const override;
  CeilingLayer ceilingLayer() const override;

  bool batch_norm;
  int64_t height, width;  ///< of the input images
  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
TORCH_MODULE(Cnn);

/// charlm: next-byte prediction. Byte embedding, a GRU, a linear head over the bytes:
/// int64 tokens [B, T] → logits [B, T, vocabulary]. A position sees only the bytes before it,
/// so padding after a sequence never changes its logits.
struct CharGruImpl : NetImpl {
  CharGruImpl(int64_t vocabulary, int64_t embedding, int64_t hidden);
  torch::Tensor forward(torch::Tensor x) override;

  torch::nn::Embedding embed{nullptr};
  torch::nn::GRU gru{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(CharGru);

/// charlm-transformer: byte and position embeddings, `layers` pre-norm blocks of causal
/// multi-head self-attention and a 4× MLP (no dropout: training draws no random numbers),
/// a final LayerNorm and a linear head: int64 tokens [B, T ≤ positions] → [B, T, vocabulary].
struct CharTransformerImpl : NetImpl {
  CharTransformerImpl(int64_t vocabulary, int64_t width, int64_t heads, int64_t layers,
                      int64_t positions);
  torch::Tensor forward(torch::Tensor x) override;

  int64_t heads;
  torch::nn::Embedding embed{nullptr}, position{nullptr};
  std::vector<torch::nn::LayerNorm> norm1, norm2;
  std::vector<torch::nn::Linear> qkv, proj, up, down;
  torch::nn::LayerNorm norm_out{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(CharTransformer);

}  // namespace accumlab
