// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <memory>
#include <string>

#include "accumlab/torchscript_check.h"
#include "models/model.h"

namespace accumlab {

/// A TorchScript module (`torch.jit.script` or `torch.jit.trace`, saved from Python) as a
/// Model: every parameter is trained, forward goes through IValues.
class TorchScriptModel : public Model {
 public:
  /// `batch_dependent` (a BatchNorm inside) and `stochastic` (random ops in its graphs)
  /// describe `module`; the factory reads them once for all replicas.
  TorchScriptModel(torch::jit::Module module, std::string spec, bool batch_dependent,
                   bool stochastic);

  /// Runs forward; a non-tensor result or a failure inside the script is rethrown with the
  /// script's own one-line reason (the interpreter's traceback is dropped).
  torch::Tensor forward(const torch::Tensor& input) override;
  std::vector<torch::Tensor> parameters() override;
  std::vector<torch::Tensor> buffers() override;
  void setTraining(bool training) override;
  /// Moves floating parameters and buffers to `dtype`; integer buffers (BatchNorm's
  /// num_batches_tracked) keep their type.
  void to(const torch::Device& device, torch::Dtype dtype) override;
  bool batchDependent() const override { return batch_dependent_; }
  /// True when a module is a Dropout or any method's graph (calls inlined) has a random op.
  bool stochastic() const override { return stochastic_; }
  std::string spec() const override { return spec_; }
  /// Saves the trained module as a TorchScript archive (loadable with torch.jit.load).
  void save(const std::string& path) override;
  /// A copy of the trained module, on the CPU and in eval mode, as a TorchScript archive.
  void saveScripted(std::ostream& out) override;

 private:
  torch::jit::Module module_;
  std::string spec_;
  bool batch_dependent_;
  bool stochastic_;
};

/// Loads `path` once and returns a factory of independent replicas; nullptr when `spec` does
/// not start with "torchscript:". The file is first checked in a child process with limits
/// (checkModelInChild, with a forward pass of `sample`). Throws InputError when the file is
/// missing, not a TorchScript archive, crashes or exhausts the loader, has a tensor outside its
/// record, gives two different outputs for one sample, or has no forward method.
std::unique_ptr<ModelFactory> makeTorchScriptFactory(const std::string& spec,
                                                     const ModelSample& sample);

/// Loads `path` straight in this process with LibTorch's loader, without the child: only for
/// that child (checkModelHere) and the loader's fuzzer. Throws InputError when it is not a
/// TorchScript archive or has no forward method.
torch::jit::Module loadTorchScriptHere(const std::string& path);

/// A factory of replicas of `module`, loaded from the file of `spec` ("torchscript:FILE").
std::unique_ptr<ModelFactory> makeTorchScriptFactoryFrom(torch::jit::Module module,
                                                         const std::string& spec);

/// The one line of an exception that says what went wrong: for TorchScript errors the
/// "SomethingError: …" line after the interpreter's traceback, else the first line.
std::string conciseError(const std::exception& e);

}  // namespace accumlab
