// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/torchscript_model.h"

#include <sstream>

#include <torch/csrc/jit/passes/inliner.h>

#include <set>

#include "accumlab/input_error.h"
#include "accumlab/torchscript_check.h"
#include "data/byte_reader.h"

namespace accumlab {
namespace {

constexpr const char* kPrefix = "torchscript:";

// Replaces a tensor's storage in place, so that the module's own slots see the change.
void moveTensor(torch::Tensor t, const torch::Device& device, torch::Dtype dtype) {
  const torch::Dtype target = t.is_floating_point() ? dtype : t.scalar_type();
  if (t.device() == device && t.scalar_type() == target) return;
  torch::NoGradGuard no_grad;
  t.set_data(t.to(device, target));
}

bool hasBatchNorm(const torch::jit::Module& module) {
  for (const auto& m : module.modules()) {
    if (m.type()->name() && m.type()->name()->name().find("BatchNorm") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Operators that draw from a random generator while training.
const std::set<std::string>& randomOps() {
  static const std::set<std::string> ops = {"aten::dropout",
                                            "aten::dropout_",
                                            "aten::feature_dropout",
                                            "aten::alpha_dropout",
                                            "aten::feature_alpha_dropout",
                                            "aten::native_dropout",
                                            "aten::bernoulli",
                                            "aten::bernoulli_",
                                            "aten::rand",
                                            "aten::rand_like",
                                            "aten::randn",
                                            "aten::randn_like",
                                            "aten::randint",
                                            "aten::randint_like",
                                            "aten::randperm",
                                            "aten::multinomial",
                                            "aten::normal",
                                            "aten::normal_",
                                            "aten::uniform_",
                                            "aten::exponential_",
                                            "aten::geometric_",
                                            "aten::log_normal_",
                                            "aten::cauchy_",
                                            "aten::random_",
                                            "aten::rrelu",
                                            "aten::rrelu_",
                                            "aten::rrelu_with_noise",
                                            "aten::poisson"};
  return ops;
}

bool drawsRandomNumbers(const torch::jit::Block* block) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (randomOps().count(node->kind().toQualString())) return true;
    for (const torch::jit::Block* inner : node->blocks()) {
      if (drawsRandomNumbers(inner)) return true;
    }
  }
  return false;
}

bool isStochastic(const torch::jit::Module& module) {
  for (const auto& m : module.modules()) {
    if (m.type()->name() && m.type()->name()->name().find("Dropout") != std::string::npos) {
      return true;
    }
    for (const auto& method : m.get_methods()) {
      // Scripted helpers (torch.nn.functional.dropout) are calls until inlined.
      std::shared_ptr<torch::jit::Graph> graph = method.graph()->copy();
      torch::jit::Inline(*graph);
      if (drawsRandomNumbers(graph->block())) return true;
    }
  }
  return false;
}

class TorchScriptFactory : public ModelFactory {
 public:
  // The module's kind is read once here: inlining every method's graph is not free, and
  // every replica is the same module.
  TorchScriptFactory(torch::jit::Module module, std::string spec)
      : module_(std::move(module)),
        spec_(std::move(spec)),
        batch_dependent_(hasBatchNorm(module_)),
        stochastic_(isStochastic(module_)) {}

  std::unique_ptr<Model> create() override {
    // clone() copies every parameter and buffer: replicas train independently and all start
    // from the weights stored in the file. Without grad mode the copies are leaves again,
    // not outputs of a clone op, so an optimizer accepts them.
    torch::NoGradGuard no_grad;
    torch::jit::Module replica = module_.clone();
    return std::make_unique<TorchScriptModel>(std::move(replica), spec_, batch_dependent_,
                                              stochastic_);
  }

 private:
  torch::jit::Module module_;
  std::string spec_;
  bool batch_dependent_;
  bool stochastic_;
};

}  // namespace

std::string conciseError(const std::exception& e) {
  const auto* c10 = dynamic_cast<const c10::Error*>(&e);
  const std::string text = c10 ? c10->what_without_backtrace() : e.what();
  std::istringstream in(text);
  std::string first;
  std::string reason;
  for (std::string line; std::getline(in, line);) {
    if (first.empty() && !line.empty()) first = line;
    // "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x784 and 64x32)"
    const size_t colon = line.find("Error: ");
    if (colon != std::string::npos && line.find(' ') > colon) reason = line.substr(colon + 7);
  }
  return reason.empty() ? first : reason;
}

TorchScriptModel::TorchScriptModel(torch::jit::Module module, std::string spec,
                                   bool batch_dependent, bool stochastic)
    : module_(std::move(module)),
      spec_(std::move(spec)),
      batch_dependent_(batch_dependent),
      stochastic_(stochastic) {
  for (auto p : module_.parameters()) p.requires_grad_(true);  // every parameter is trained
}

torch::Tensor TorchScriptModel::forward(const torch::Tensor& input) {
  torch::IValue out;
  try {
    out = module_.forward({input});
  } catch (const std::exception& e) {
    throw std::runtime_error(conciseError(e));
  }
  if (!out.isTensor()) {
    throw InputError("model '" + spec_ + "' returns a " + out.tagKind() +
                     " from forward, but AccumLab needs one tensor of logits or predictions; "
                     "return only that tensor");
  }
  return out.toTensor();
}

std::vector<torch::Tensor> TorchScriptModel::parameters() {
  std::vector<torch::Tensor> out;
  for (const auto& p : module_.parameters()) out.push_back(p);
  return out;
}

std::vector<torch::Tensor> TorchScriptModel::buffers() {
  std::vector<torch::Tensor> out;
  for (const auto& b : module_.buffers()) out.push_back(b);
  return out;
}

void TorchScriptModel::setTraining(bool training) { module_.train(training); }

void TorchScriptModel::to(const torch::Device& device, torch::Dtype dtype) {
  for (const auto& p : module_.parameters()) moveTensor(p, device, dtype);
  for (const auto& b : module_.buffers()) moveTensor(b, device, dtype);
}

void TorchScriptModel::save(const std::string& path) { module_.save(path); }

void TorchScriptModel::saveScripted(std::ostream& out) {
  torch::jit::Module copy = module_.deepcopy();
  copy.to(torch::kCPU);
  copy.eval();
  copy.save(out);
}

std::unique_ptr<ModelFactory> makeTorchScriptFactory(const std::string& spec,
                                                     const ModelSample& sample) {
  if (spec.rfind(kPrefix, 0) != 0) return nullptr;
  const std::string path = spec.substr(std::string(kPrefix).size());
  if (path.empty()) throw InputError("model '" + spec + "' names no file: use torchscript:FILE.pt");
  checkReadableFile(path);
  // LibTorch's loader can crash, grow without bound or read past a truncated record on a
  // damaged file (tests/fuzz/findings/torchscript/): the file is checked in a child with
  // limits first, so that a bad file costs that child, not the app or the CLI.
  checkModelInChild(path, sample);
  return makeTorchScriptFactoryFrom(loadTorchScriptHere(path), spec);
}

torch::jit::Module loadTorchScriptHere(const std::string& path) {
  checkReadableFile(path);
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, torch::kCPU);
  } catch (const std::exception& e) {
    throw InputError(path + " is not a TorchScript archive (" + conciseError(e) +
                     "); save the model from Python with torch.jit.script(model).save(path), "
                     "not torch.save");
  }
  if (!module.find_method("forward")) {
    throw InputError("TorchScript model " + path + " has no forward method; script a module " +
                     "whose forward(x) returns the logits or predictions");
  }
  return module;
}

std::unique_ptr<ModelFactory> makeTorchScriptFactoryFrom(torch::jit::Module module,
                                                         const std::string& spec) {
  return std::make_unique<TorchScriptFactory>(std::move(module), spec);
}

}  // namespace accumlab
