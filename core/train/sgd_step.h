// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

namespace accumlab {

/// LibTorch's SGD step (torch::optim::SGD::step: weight decay, momentum with dampening 0,
/// Nesterov) in one pass over each parameter instead of three to five dispatched ops, each a
/// pass of its own over the weights: the same arithmetic element by element (ATen's add with
/// an alpha is a fused multiply-add, its mul one rounding), so the same bits, and the momentum
/// buffers stay in the optimizer's own state, which checkpoints save. At m = 8 the update of
/// the MLP's first layer is a large part of a window (docs/performance.md).
/// Takes the step and returns true; returns false, having changed nothing, where it cannot
/// promise LibTorch's bits: another optimizer, a parameter off the CPU, not float32 or
/// float64, not contiguous, or an ATen whose additions this process finds rounded otherwise
/// (checked once per dtype on probe tensors against LibTorch's own SGD). The caller then
/// calls optimizer.step().
bool fusedSgdStep(torch::optim::Optimizer& optimizer);

/// Whether fusedSgdStep gives LibTorch's bits for parameters of `dtype` in this process: its
/// probe, run once per process and kept. Its tensors are a few KiB, freed on return; call it
/// outside a measured window, as ArmStepper does.
bool fusedSgdMatchesLibTorch(torch::Dtype dtype);

}  // namespace accumlab
