// SPDX-License-Identifier: GPL-3.0-or-later
// A model's tensors and an optimizer's state inside the run's checkpoint (its one format:
// core/train/run_checkpoint.cpp), checked against the model they are read into.
#include "models/model_state.h"

#include <sstream>

#include "accumlab/input_error.h"
#include "models/torchscript_model.h"

namespace accumlab {
namespace {

// The model's tensors are stored by position, in Model's fixed order.
std::string keyOf(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

void writeTensors(torch::serialize::OutputArchive& archive, const std::string& prefix,
                  const std::vector<torch::Tensor>& tensors, bool buffers) {
  archive.write(prefix + ".count", torch::tensor(static_cast<int64_t>(tensors.size())));
  for (size_t i = 0; i < tensors.size(); ++i) {
    archive.write(prefix + "." + std::to_string(i), tensors[i].detach(), buffers);
  }
}

void readTensors(torch::serialize::InputArchive& archive, const std::string& path,
                 const std::string& prefix, const std::vector<torch::Tensor>& tensors,
                 bool buffers) {
  torch::Tensor count;
  archive.read(prefix + ".count", count);
  if (count.item<int64_t>() != static_cast<int64_t>(tensors.size())) {
    throw InputError("checkpoint " + path + " holds " + std::to_string(count.item<int64_t>()) +
                     " " + prefix + " tensors, but the model has " +
                     std::to_string(tensors.size()) + "; it was saved from another model");
  }
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < tensors.size(); ++i) {
    torch::Tensor saved;
    archive.read(prefix + "." + std::to_string(i), saved, buffers);
    if (!saved.sizes().equals(tensors[i].sizes())) {
      throw InputError("checkpoint " + path + " has " + prefix + " " + std::to_string(i) +
                       " of shape " + shapeText(saved.sizes()) + ", but the model's is " +
                       shapeText(tensors[i].sizes()) + "; it was saved from another model");
    }
    tensors[i].copy_(saved);
  }
}

}  // namespace

void writeModelTensors(torch::serialize::OutputArchive& archive, const std::string& prefix,
                       Model& model) {
  writeTensors(archive, keyOf(prefix, "param"), model.parameters(), false);
  writeTensors(archive, keyOf(prefix, "buffer"), model.buffers(), true);
}

void readModelTensors(torch::serialize::InputArchive& archive, const std::string& prefix,
                      const std::string& path, Model& model) {
  readTensors(archive, path, keyOf(prefix, "param"), model.parameters(), false);
  readTensors(archive, path, keyOf(prefix, "buffer"), model.buffers(), true);
}

std::string optimizerStateBytes(torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

void loadOptimizerStateBytes(torch::optim::Optimizer& optimizer, const std::string& bytes,
                             const std::string& path) {
  try {
    std::istringstream in(bytes);
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    optimizer.load(archive);
  } catch (const std::exception& e) {
    throw InputError("checkpoint " + path +
                     " holds an optimizer state this optimizer cannot take (" + conciseError(e) +
                     ")");
  }
}

}  // namespace accumlab
