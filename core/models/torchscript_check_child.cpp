// SPDX-License-Identifier: GPL-3.0-or-later
// The model check's child (accumlab-engine check-model FILE SAMPLE): what it proves about a
// user's TorchScript file before any other process loads it.
#include "models/torchscript_check_child.h"

#include <unistd.h>

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/inliner.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <sstream>

#include "accumlab/input_error.h"
#include "memory/allocation_sizes.h"
#include "models/torchscript_model.h"

namespace accumlab {
namespace {

// What a failed allocation says inside LibTorch (c10's CPU allocator), in the loader's error.
constexpr const char* kAllocatorFailure = "can't allocate memory";
// The seed set before each of the two forward passes: random ops draw the same numbers.
constexpr uint64_t kForwardSeed = 0;
// The golden ratio's fraction: sample features i·φ mod 1 − ½ are spread and not periodic.
constexpr double kGoldenFraction = 0.6180339887498949;
// Byte tokens of a text sample: (i·37 + 11) mod 256 walks through every byte value.
constexpr int64_t kTokenStep = 37;
constexpr int64_t kTokenStart = 11;
constexpr int64_t kByteValues = 256;
// What the refusals end with.
constexpr const char* kSaveAgain =
    "; save it again from Python with torch.jit.script(model).save(path)";

// 6144 → "6,144".
std::string withThousands(uint64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string checkedShapeText(c10::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw InputError(path + " is not a usable TorchScript model: " + why + kSaveAgain);
}

/// The bytes from its storage's start to just past the last element `t` can reach; nullopt
/// when an offset or a stride is negative or the reach passes 2^64 bytes.
std::optional<uint64_t> reachBytes(const at::Tensor& t) {
  if (t.numel() == 0) return 0;
  if (t.storage_offset() < 0) return std::nullopt;
  unsigned __int128 last = static_cast<uint64_t>(t.storage_offset());
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) < 0) return std::nullopt;
    last += static_cast<unsigned __int128>(t.size(d) - 1) * static_cast<uint64_t>(t.stride(d));
  }
  const unsigned __int128 bytes = (last + 1) * t.element_size();
  if (bytes > UINT64_MAX) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

/// Checks that every tensor reachable from the module lies inside its block; each tensor
/// once, named by the first name it is found under.
class ExtentCheck {
 public:
  ExtentCheck(const std::string& path, const AllocationSizes& sizes) : path_(path), sizes_(sizes) {}

  void tensor(const at::Tensor& t, const std::string& name) {
    if (!t.defined() || !seen_.insert(t.unsafeGetTensorImpl()).second) return;
    if (t.is_sparse()) {
      tensor(t._indices(), name + "'s indices");
      tensor(t._values(), name + "'s values");
      return;
    }
    if (t.layout() != at::kStrided) {
      refuse(path_, name + " has a layout that AccumLab cannot check (" + c10::str(t.layout()) +
                        "); save it as a dense tensor");
    }
    if (!t.device().is_cpu()) {
      refuse(path_, name + " is on " + t.device().str() + " after loading on the CPU");
    }
    const std::optional<uint64_t> needs = reachBytes(t);
    if (!needs) {
      refuse(path_, name + " " + checkedShapeText(t.sizes()) +
                        " has a negative storage offset or " +
                        "stride, or reaches past 2^64 bytes");
    }
    if (*needs == 0) return;
    const c10::Storage& storage = t.storage();
    const void* data = storage.data_ptr().get();
    if (data == nullptr) {
      refuse(path_, name + " needs " + withThousands(*needs) + " bytes but has no data");
    }
    const uint64_t claimed = storage.nbytes();
    const std::optional<size_t> block = sizes_.blockBytes(data);
    if (block && *block<claimed&& * needs> * block) {
      refuse(path_, name + " needs " + withThousands(*needs) + " bytes but its record holds " +
                        withThousands(*block));
    }
    if (*needs > claimed) {
      refuse(path_, name + " needs " + withThousands(*needs) + " bytes but its storage holds " +
                        withThousands(claimed));
    }
  }

  void value(const c10::IValue& v, const std::string& name, int depth) {
    // Nested containers: deep enough for any real model, bounded against a crafted one.
    constexpr int kMaxDepth = 16;
    if (depth > kMaxDepth) return;
    if (v.isTensor()) {
      tensor(v.toTensor(), name);
    } else if (v.isList()) {
      const c10::List<c10::IValue> list = v.toList();
      for (size_t i = 0; i < list.size(); ++i) {
        value(list.get(i), name + "[" + std::to_string(i) + "]", depth + 1);
      }
    } else if (v.isTuple()) {
      const auto& elements = v.toTupleRef().elements();
      for (size_t i = 0; i < elements.size(); ++i) {
        value(elements[i], name + "[" + std::to_string(i) + "]", depth + 1);
      }
    } else if (v.isGenericDict()) {
      size_t i = 0;
      for (const auto& entry : v.toGenericDict()) {
        value(entry.key(), name + " key " + std::to_string(i), depth + 1);
        value(entry.value(), name + " value " + std::to_string(i), depth + 1);
        ++i;
      }
    }
  }

  void constants(const torch::jit::Block* block, const std::string& method) {
    for (const torch::jit::Node* node : block->nodes()) {
      if (node->kind() == c10::prim::Constant && node->outputs().size() == 1) {
        if (const auto v = torch::jit::toIValue(node->output())) {
          value(*v, "a constant of " + method, 0);
        }
      }
      for (const torch::jit::Block* inner : node->blocks()) constants(inner, method);
    }
  }

 private:
  const std::string& path_;
  const AllocationSizes& sizes_;
  std::set<const c10::TensorImpl*> seen_;
};

void checkExtents(const torch::jit::Module& module, const std::string& path,
                  const AllocationSizes& sizes) {
  ExtentCheck check(path, sizes);
  for (const auto& p : module.named_parameters(true)) check.tensor(p.value, "parameter " + p.name);
  for (const auto& b : module.named_buffers(true)) check.tensor(b.value, "buffer " + b.name);
  for (const auto& a : module.named_attributes(true)) {
    check.value(a.value, "attribute " + a.name, 0);
  }
  for (const auto& m : module.named_modules()) {
    for (const auto& method : m.value.get_methods()) {
      // Scripted helpers called from a method keep their constants until inlined.
      std::shared_ptr<torch::jit::Graph> graph = method.graph()->copy();
      torch::jit::Inline(*graph);
      const std::string name = (m.name.empty() ? "" : m.name + ".") + method.name();
      check.constants(graph->block(), name);
    }
  }
}

torch::Dtype featureType(const torch::jit::Module& module) {
  for (const auto& p : module.parameters()) {
    if (p.is_floating_point()) return p.scalar_type();
  }
  return torch::kFloat32;
}

torch::Tensor sampleBatch(const ModelSample& sample, torch::Dtype features) {
  std::vector<int64_t> shape{1};
  shape.insert(shape.end(), sample.shape.begin(), sample.shape.end());
  int64_t n = 1;
  for (int64_t d : sample.shape) n *= d;
  if (sample.tokens) {
    return torch::remainder(torch::arange(n, torch::kLong) * kTokenStep + kTokenStart, kByteValues)
        .reshape(shape);
  }
  return (torch::frac(torch::arange(n, torch::kFloat64) * kGoldenFraction) - 0.5)
      .to(features)
      .reshape(shape);
}

bool isAllocationFailure(const std::exception& e) {
  return dynamic_cast<const std::bad_alloc*>(&e) != nullptr ||
         std::string(e.what()).find(kAllocatorFailure) != std::string::npos;
}

/// Two forward passes of `x` in evaluation mode from the same seed must give the same bits: a
/// model that reads memory it does not own, or keeps state between calls, does not.
void checkRepeatable(Model& model, const torch::Tensor& x, const std::string& path) {
  torch::NoGradGuard no_grad;
  model.setTraining(false);
  // One forward pass from the seed; an error other than an allocation failure is returned.
  const auto forward = [&](torch::Tensor* out) -> std::string {
    try {
      torch::manual_seed(kForwardSeed);
      *out = model.forward(x).contiguous();
      return "";
    } catch (const std::exception& e) {
      if (isAllocationFailure(e)) throw;
      return e.what();
    }
  };
  torch::Tensor first;
  // A sample the model cannot take: the dry run before training names both shapes.
  if (!forward(&first).empty()) return;
  torch::Tensor second;
  if (const std::string error = forward(&second); !error.empty()) {
    refuse(path, "of two forward passes of one sample, the first gave " +
                     checkedShapeText(first.sizes()) + " and the second failed (" + error + ")");
  }
  if (first.sizes() != second.sizes() || first.scalar_type() != second.scalar_type()) {
    refuse(path, "two forward passes of one sample gave outputs of shapes " +
                     checkedShapeText(first.sizes()) + " and " + checkedShapeText(second.sizes()) +
                     "; a model's output must depend only on its input and weights");
  }
  const size_t bytes = static_cast<size_t>(first.numel()) * first.element_size();
  if (std::memcmp(first.data_ptr(), second.data_ptr(), bytes) == 0) return;
  std::ostringstream difference;
  if (first.is_floating_point()) {
    difference
        << " (largest difference "
        << (first.to(torch::kFloat64) - second.to(torch::kFloat64)).abs().max().item<double>()
        << ")";
  }
  refuse(path, "two forward passes of one sample with the same seed gave different outputs" +
                   difference.str() +
                   "; a model's output must depend only on its input and weights");
}

// Fails the child at once when operator new finds no memory, before anything can turn
// bad_alloc into another error or an abort.
void outOfMemory() {
  static const char kText[] = "out of memory\n";
  (void)!::write(STDERR_FILENO, kText, sizeof kText - 1);
  ::_exit(kCheckModelOutOfMemory);
}

}  // namespace

void verifyTorchScriptHere(const std::string& path, const ModelSample& sample) {
  torch::jit::Module module;
  {
    // Only the load's blocks are recorded; each storage's block is looked up right after it.
    AllocationSizes sizes;
    module = loadTorchScriptHere(path);
    checkExtents(module, path, sizes);
  }
  const std::string spec = "torchscript:" + path;
  const torch::Tensor x = sampleBatch(sample, featureType(module));
  // Everything the parent's load does next: read the module's kind, make one replica.
  std::unique_ptr<Model> replica = makeTorchScriptFactoryFrom(std::move(module), spec)->create();
  checkRepeatable(*replica, x, path);
}

std::optional<ModelSample> parseSampleArgument(const std::string& text) {
  ModelSample sample;
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string kind = text.substr(0, colon);
  if (kind != "float" && kind != "tokens") return std::nullopt;
  sample.tokens = kind == "tokens";
  // Bounded: 16 million values per sample is far above any dataset AccumLab reads.
  constexpr int64_t kMaxValues = int64_t{1} << 24;
  int64_t n = 1;
  size_t start = colon + 1;
  for (;;) {
    const size_t x = text.find('x', start);
    const std::string d =
        text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos || d.size() > 9) {
      return std::nullopt;
    }
    sample.shape.push_back(std::stoll(d));
    n *= std::max<int64_t>(sample.shape.back(), 1);
    if (n > kMaxValues) return std::nullopt;
    if (x == std::string::npos) return sample;
    start = x + 1;
  }
}

int checkModelHere(const std::string& path, const std::string& sample_argument) {
  const std::optional<ModelSample> sample = parseSampleArgument(sample_argument);
  if (!sample) {
    std::fprintf(stderr, "check-model: '%s' is not a sample such as float:1x8x8 or tokens:40\n",
                 sample_argument.c_str());
    return kCheckModelUsage;
  }
  std::set_new_handler(outOfMemory);
  // A crash inside LibTorch's loader ends this child by its signal, which the parent reports
  // as a crash; under AddressSanitizer its handler would instead print a report and exit 1,
  // which the parent cannot tell from a checker that does not run. Memory errors in our own
  // code are still caught there by the instrumentation, which needs no signal.
  for (int signo : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(signo, SIG_DFL);
  // One thread: the two forward passes then add up in the same order.
  torch::set_num_threads(1);
  try {
    verifyTorchScriptHere(path, *sample);
    return 0;
  } catch (const std::exception& e) {
    if (isAllocationFailure(e)) return kCheckModelOutOfMemory;
    if (dynamic_cast<const InputError*>(&e)) {
      std::fprintf(stderr, "%s\n", e.what());
    } else {
      std::fprintf(stderr, "%s is not a usable TorchScript model (%s)\n", path.c_str(),
                   conciseError(e).c_str());
    }
    return kCheckModelNotLoadable;
  }
}

}  // namespace accumlab
