// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in networks written out as TorchScript (docs/store.md#trained-models): what a user
// takes away must load in plain PyTorch, so its forward is TorchScript source, and each line
// below calls the ATen op that the network's C++ forward (models/builtin_nets.cpp) calls, with
// the same arguments: torch.linear for nn::Linear, torch.conv2d for nn::Conv2d, torch.gru with
// a zero initial state for nn::GRU, and so on. tests/cli/export_model_test.py checks the
// outputs against the run's own validation loss.
#include "models/scripted_net.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "accumlab/input_error.h"

namespace accumlab {

namespace {

/// A double as TorchScript source that reads back as the same double.
std::string scriptNumber(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

/// `layer`'s weight and bias as TorchScript arguments: "self.fc0.weight, self.fc0.bias".
std::string weightAndBias(const std::string& layer) {
  return "self." + layer + ".weight, self." + layer + ".bias";
}

std::string linear(const std::string& x, const std::string& layer) {
  return "torch.linear(" + x + ", " + weightAndBias(layer) + ")";
}

std::string layerNorm(const std::string& x, const std::string& layer, int64_t width) {
  return "torch.layer_norm(" + x + ", [" + std::to_string(width) + "], " + weightAndBias(layer) +
         ", 1e-05)";
}

/// The forward of Mlp (logreg: no hidden layer).
std::string mlpForward(int64_t layers) {
  std::string s = "def forward(self, x):\n    x = torch.flatten(x, 1)\n";
  for (int64_t i = 0; i + 1 < layers; ++i) {
    s += "    x = torch.relu(" + linear("x", "fc" + std::to_string(i)) + ")\n";
  }
  return s + "    return " + linear("x", "fc" + std::to_string(layers - 1)) + "\n";
}

/// The forward of Cnn; BatchNorm with the running statistics in eval mode, as nn::BatchNorm2d.
std::string cnnForward(bool batch_norm) {
  auto bn = [&](const std::string& layer) {
    if (!batch_norm) return std::string();
    return "    x = torch.batch_norm(x, " + weightAndBias(layer) + ", self." + layer +
           ".running_mean, self." + layer + ".running_var, self.training, 0.1, 1e-05, True)\n";
  };
  return "def forward(self, x):\n"
         "    if x.dim() == 3:\n"
         "        x = x.unsqueeze(1)\n"
         "    x = torch.conv2d(x, " +
         weightAndBias("conv1") + ", [1, 1], [2, 2], [1, 1], 1)\n" + bn("bn1") +
         "    x = torch.max_pool2d(torch.relu(x), [2, 2])\n"
         "    x = torch.conv2d(x, " +
         weightAndBias("conv2") + ", [1, 1], [0, 0], [1, 1], 1)\n" + bn("bn2") +
         "    x = torch.max_pool2d(torch.relu(x), [2, 2])\n"
         "    x = torch.relu(" +
         linear("torch.flatten(x, 1)", "fc1") +
         ")\n"
         "    x = torch.relu(" +
         linear("x", "fc2") + ")\n    return " + linear("x", "head") + "\n";
}

/// The forward of CharGru: a GRU of one layer, batch first, from a zero state.
std::string gruForward(int64_t hidden) {
  return "def forward(self, x):\n"
         "    e = torch.embedding(self.embed.weight, x)\n"
         "    h0 = torch.zeros([1, e.size(0), " +
         std::to_string(hidden) +
         "], dtype=e.dtype, device=e.device)\n"
         "    h, _ = torch.gru(e, h0, [self.gru.weight_ih_l0, self.gru.weight_hh_l0, "
         "self.gru.bias_ih_l0, self.gru.bias_hh_l0], True, 1, 0.0, self.training, False, True)\n"
         "    return " +
         linear("h", "head") + "\n";
}

/// The forward of CharTransformer: `layers` pre-norm blocks of causal attention and an MLP.
std::string transformerForward(int64_t layers, int64_t width, int64_t heads) {
  const int64_t d = width / heads;
  const std::string w = std::to_string(width);
  std::string s =
      "def forward(self, x):\n"
      "    b = x.size(0)\n"
      "    t = x.size(1)\n"
      "    h = torch.embedding(self.embed.weight, x) + torch.embedding(self.position.weight, "
      "torch.arange(t, device=x.device))\n"
      // No dtype names: TorchScript compiled from C++ resolves no torch.long or torch.bool.
      "    future = torch.triu(torch.ones([t, t], device=x.device), 1) > 0.5\n";
  for (int64_t i = 0; i < layers; ++i) {
    const std::string n = std::to_string(i);
    const std::string split =
        ".view([b, t, " + std::to_string(heads) + ", " + std::to_string(d) + "]).transpose(1, 2)\n";
    s += "    parts = torch.chunk(" + linear(layerNorm("h", "norm1_" + n, width), "qkv" + n) +
         ", 3, 2)\n";
    s += "    q = parts[0]" + split + "    k = parts[1]" + split + "    v = parts[2]" + split;
    s += "    scores = torch.matmul(q, k.transpose(-2, -1)) / " +
         scriptNumber(std::sqrt(static_cast<double>(d))) + "\n";
    s += "    scores = scores.masked_fill(future, float(\"-inf\"))\n";
    s += "    attended = torch.matmul(torch.softmax(scores, -1), v)\n";
    s += "    h = h + " +
         linear("attended.transpose(1, 2).reshape([b, t, " + w + "])", "proj" + n) + "\n";
    s += "    h = h + " +
         linear("torch.gelu(" + linear(layerNorm("h", "norm2_" + n, width), "up" + n) + ")",
                "down" + n) +
         "\n";
  }
  return s + "    return " + linear(layerNorm("h", "norm_out", width), "head") + "\n";
}

/// The submodule `name` of `m`, made (empty) when missing.
torch::jit::Module childOf(torch::jit::Module& m, const std::string& name,
                           std::map<std::string, torch::jit::Module>& made) {
  auto found = made.find(name);
  if (found == made.end()) {
    torch::jit::Module child("__torch__.accumlab." + name);
    child.register_attribute("training", c10::BoolType::get(), false);
    found = made.emplace(name, child).first;
  }
  return found->second;
}

}  // namespace

torch::jit::Module scriptedNet(NetImpl& net, const std::string& spec) {
  const std::string name = spec.substr(0, spec.find(':'));
  torch::jit::Module m("__torch__.accumlab.Model");
  // Module::train() and Python's .eval() set `training` on every module: each needs one.
  m.register_attribute("training", c10::BoolType::get(), false);
  // Every parameter and buffer under its C++ name "layer.tensor", one submodule per layer.
  std::map<std::string, torch::jit::Module> layers;
  std::vector<std::string> order;
  auto place = [&](const std::string& full, const torch::Tensor& t, bool parameter) {
    const size_t dot = full.find('.');
    if (dot == std::string::npos || full.find('.', dot + 1) != std::string::npos) {
      throw InputError("model '" + spec + "' has a tensor named '" + full +
                       "' that cannot be written as TorchScript");
    }
    const std::string layer = full.substr(0, dot);
    if (layers.count(layer) == 0) order.push_back(layer);
    torch::jit::Module child = childOf(m, layer, layers);
    const torch::Tensor copy = t.detach().to(torch::kCPU).clone();
    if (parameter) {
      child.register_parameter(full.substr(dot + 1), copy, false);
    } else {
      child.register_buffer(full.substr(dot + 1), copy);
    }
  };
  for (const auto& p : net.named_parameters()) place(p.key(), p.value(), true);
  for (const auto& b : net.named_buffers()) place(b.key(), b.value(), false);
  for (const std::string& layer : order) m.register_module(layer, layers.at(layer));

  std::string forward;
  if (name == "logreg" || name == "mlp") {
    int64_t count = 0;
    while (layers.count("fc" + std::to_string(count)) > 0) ++count;
    forward = mlpForward(count);
  } else if (name == "cnn" || name == "cnn_bn") {
    forward = cnnForward(name == "cnn_bn");
  } else if (name == "charlm") {
    forward = gruForward(net.named_parameters()["gru.weight_hh_l0"].size(1));
  } else if (name == "charlm-transformer") {
    const auto* transformer = dynamic_cast<CharTransformerImpl*>(&net);
    int64_t blocks = 0;
    while (layers.count("qkv" + std::to_string(blocks)) > 0) ++blocks;
    if (transformer == nullptr) throw InputError("model '" + spec + "' is not a transformer");
    forward = transformerForward(blocks, net.named_parameters()["embed.weight"].size(1),
                                 transformer->heads);
  } else {
    throw InputError("model '" + spec + "' cannot be written as TorchScript");
  }
  m.define(forward);
  m.eval();
  return m;
}

}  // namespace accumlab
