// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <string>

#include "models/builtin_nets.h"
#include "models/model.h"

namespace accumlab {

/// A built-in network (logreg, mlp, cnn, cnn_bn, charlm, charlm-transformer) as a Model.
class BuiltinModel : public Model {
 public:
  BuiltinModel(std::shared_ptr<NetImpl> net, std::string spec, bool batch_dependent);

  torch::Tensor forward(const torch::Tensor& input) override;
  std::vector<torch::Tensor> parameters() override;
  std::vector<torch::Tensor> buffers() override;
  void setTraining(bool training) override;
  void to(const torch::Device& device, torch::Dtype dtype) override;
  bool batchDependent() const override { return batch_dependent_; }
  bool stochastic() const override { return false; }
  std::string spec() const override { return spec_; }
  void save(const std::string& path) override;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> reluStack() override;
  double flopsPerSample() const override;
  CeilingLayer ceilingLayer() const override;
  /// The network's forward as TorchScript source (scriptedNet) with a copy of its weights.
  void saveScripted(std::ostream& out) override;

 private:
  std::shared_ptr<NetImpl> net_;
  std::string spec_;
  bool batch_dependent_;
};

/// Factory for the built-in specs; returns nullptr when `spec` names no built-in model.
/// Throws InputError when the model does not fit the data (`text`: byte sequences).
std::unique_ptr<ModelFactory> makeBuiltinFactory(const std::string& spec,
                                                 const std::vector<int64_t>& sample_shape,
                                                 int64_t outputs, uint64_t seed, bool text);

}  // namespace accumlab
