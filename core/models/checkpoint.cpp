#include "models/checkpoint.h"

#include "accumlab/input_error.h"
#include "data/byte_reader.h"
#include "models/torchscript_model.h"

namespace accumlab {
namespace {

// Keys of the archive; the model's tensors are stored by position, in Model's fixed order.
constexpr const char* kSpecKey = "accumlab.model_spec";
constexpr const char* kOptimizerKey = "optimizer";

std::string shapeText(c10::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

void writeTensors(torch::serialize::OutputArchive& archive, const std::string& prefix,
                  const std::vector<torch::Tensor>& tensors) {
  archive.write(prefix + ".count", torch::tensor(static_cast<int64_t>(tensors.size())));
  for (size_t i = 0; i < tensors.size(); ++i) {
    archive.write(prefix + "." + std::to_string(i), tensors[i].detach(), prefix == "buffer");
  }
}

void readTensors(torch::serialize::InputArchive& archive, const std::string& path,
                 const std::string& prefix, const std::vector<torch::Tensor>& tensors) {
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
    archive.read(prefix + "." + std::to_string(i), saved, prefix == "buffer");
    if (!saved.sizes().equals(tensors[i].sizes())) {
      throw InputError("checkpoint " + path + " has " + prefix + " " + std::to_string(i) +
                       " of shape " + shapeText(saved.sizes()) + ", but the model's is " +
                       shapeText(tensors[i].sizes()) + "; it was saved from another model");
    }
    tensors[i].copy_(saved);
  }
}

}  // namespace

void saveCheckpoint(const std::string& path, Model& model, torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive archive;
  archive.write(kSpecKey, c10::IValue(model.spec()));
  writeTensors(archive, "param", model.parameters());
  writeTensors(archive, "buffer", model.buffers());
  torch::serialize::OutputArchive optimizer_archive;
  optimizer.save(optimizer_archive);
  archive.write(kOptimizerKey, optimizer_archive);
  archive.save_to(path);
}

void loadCheckpoint(const std::string& path, Model& model, torch::optim::Optimizer& optimizer) {
  checkReadableFile(path);
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    c10::IValue spec;
    if (!archive.try_read(kSpecKey, spec) || !spec.isString()) {
      throw InputError(path + " is not an AccumLab checkpoint (it has no model spec)");
    }
    readTensors(archive, path, "param", model.parameters());
    readTensors(archive, path, "buffer", model.buffers());
    torch::serialize::InputArchive optimizer_archive;
    archive.read(kOptimizerKey, optimizer_archive);
    optimizer.load(optimizer_archive);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(path + " cannot be read as a checkpoint of model '" + model.spec() + "' (" +
                     conciseError(e) + ")");
  }
}

}  // namespace accumlab
