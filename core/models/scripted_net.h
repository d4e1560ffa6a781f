// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <string>

#include "models/builtin_nets.h"

namespace accumlab {

/// A built-in network (made from model `spec`: logreg, mlp, cnn, cnn_bn, charlm,
/// charlm-transformer) as a TorchScript module that plain PyTorch loads (`torch.jit.load`),
/// with no AccumLab code: each of `net`'s parameters and buffers copied to the CPU under its own
/// name (`fc0.weight`), and a forward written in TorchScript that computes what the C++
/// forward does, op for op, so that its outputs are the same. In eval mode. Throws
/// InputError for a spec it does not know.
torch::jit::Module scriptedNet(NetImpl& net, const std::string& spec);

}  // namespace accumlab
