// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace accumlab {

/// The layer whose product a run times alone for its throughput ceiling (ArmCeiling): a
/// Linear layer `in` → `out` features, or a convolution of `in` to `out` channels with a
/// `kernel`×`kernel` kernel and `padding` on `height`×`width` images. kNone: not known.
struct CeilingLayer {
  enum class Kind { kNone, kLinear, kConvolution };
  Kind kind = Kind::kNone;
  int64_t in = 0, out = 0;          ///< features, or channels
  int64_t height = 0, width = 0;    ///< a convolution's images
  int64_t kernel = 0, padding = 0;  ///< and its kernel
};

/// A trainable model, built-in or loaded. One instance per arm, used on the training thread.
class Model {
 public:
  virtual ~Model() = default;
  /// Logits (classification) or predictions (regression), shape [batch, outputs].
  virtual torch::Tensor forward(const torch::Tensor& input) = 0;
  /// Every trained parameter, in a fixed order shared by all replicas.
  virtual std::vector<torch::Tensor> parameters() = 0;
  /// Non-trained state (e.g. BatchNorm running statistics), in a fixed order.
  virtual std::vector<torch::Tensor> buffers() = 0;
  /// Switches train/eval mode (dropout, BatchNorm).
  virtual void setTraining(bool training) = 0;
  /// Moves parameters and buffers to a device and floating dtype.
  virtual void to(const torch::Device& device, torch::Dtype dtype) = 0;
  /// True when the output of one sample depends on the others in its batch (BatchNorm):
  /// then splitting a batch changes the result.
  virtual bool batchDependent() const = 0;
  /// True when training draws random numbers (dropout, bernoulli, rand*): then two arms
  /// differ by their random draws even where their updates are otherwise equal.
  virtual bool stochastic() const = 0;
  /// The spec it was made from, e.g. "mlp:128,128".
  virtual std::string spec() const = 0;
  /// Saves the model (weights, or a TorchScript archive) to `path`.
  virtual void save(const std::string& path) = 0;
  /// A plain stack of fully connected layers with ReLU between them (input flattened): its
  /// (weight [out, in], bias [out]) from the first layer to the head, which training may run
  /// without autograd (train/fused_mlp.h); empty for any other model.
  virtual std::vector<std::pair<torch::Tensor, torch::Tensor>> reluStack() { return {}; }
  /// Floating-point operations of one sample's forward and backward pass, counted from the
  /// layers' shapes (multiply-adds ×2 of the matrix products and convolutions); 0 when not
  /// known (a TorchScript model).
  virtual double flopsPerSample() const { return 0; }
  /// The layer the ceiling times, where the model counts its FLOPs (kNone otherwise): the
  /// MLP's largest product (the first layer of 784-256-10), the CNN's first convolution.
  virtual CeilingLayer ceilingLayer() const { return {}; }
  /// Writes the model as a TorchScript archive that plain PyTorch loads (`torch.jit.load`):
  /// a copy of its weights on the CPU, in eval mode, whose forward gives forward()'s outputs
  /// (ArmWeights). Throws InputError when the model cannot be written so.
  virtual void saveScripted(std::ostream& out) = 0;

  /// Copies parameters and buffers from another replica of the same model.
  void copyStateFrom(Model& other);
  int64_t parameterCount();
};

/// Makes identical replicas of one model spec for the arms of an experiment.
class ModelFactory {
 public:
  virtual ~ModelFactory() = default;
  /// A new replica; every replica has the same initial weights.
  virtual std::unique_ptr<Model> create() = 0;
};

/// A tensor shape as the sentences about models write it: "[1x28x28]".
std::string shapeText(c10::IntArrayRef shape);

/// Factory for a model SPEC (docs/data-and-models.md) fitted to a dataset's sample shape and
/// outputs; `text`: the dataset is byte sequences (Dataset::isText), whose models are charlm,
/// charlm-transformer or a TorchScript sequence model. Throws InputError for an unknown spec
/// or a model that cannot take this data.
std::unique_ptr<ModelFactory> makeModelFactory(const std::string& spec,
                                               const std::vector<int64_t>& sample_shape,
                                               int64_t outputs, uint64_t seed, bool text = false);

}  // namespace accumlab
