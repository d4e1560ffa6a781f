// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "accumlab/records.h"
#include "models/model.h"
#include "train/arm_run.h"

namespace accumlab {

/// Seconds per call of a body timed alone: the best and the median of its repeats.
struct CallTiming {
  double best_s = 0;
  double median_s = 0;
};

/// Times `body`: one call to warm it (allocations, packing buffers, caches), then `repeats`
/// timings, each over enough calls to last `min_seconds / repeats` (doubling from one call);
/// a body whose warm-up call alone lasts `min_seconds` is timed once more, alone.
/// The roofline's ceilings (bench/roofline.cpp) and a run's own (measureCeiling).
CallTiming timeCalls(const std::function<void()>& body, double min_seconds, int repeats);

/// A layer's forward alone at `rows` samples, as training runs it: a Linear layer's
/// addmm(bias, x, weightᵀ) (autograd's and the fused MLP's), a convolution's conv2d. Its
/// FLOPs (2 per multiply-add) and its shape for people ("GEMM 32×784 by 784×256", "5×5
/// convolution 1→6 channels on 32 images of 28×28").
struct LayerForward {
  double flops = 0;
  std::string op;
  std::function<void()> call;
};
/// Its tensors are filled without random numbers (the run's generators are left as they were).
LayerForward layerForward(const CeilingLayer& layer, int64_t rows, torch::Device device,
                          torch::Dtype dtype);

/// The measured ceiling of `kind`'s arm: `layer`'s forward alone at micro-batch `m`, on this
/// thread, through the same LibTorch and BLAS as training: the median of a few timings after
/// a warm-up, about 40 ms. NaN GFLOP/s (and no op) where the layer is not known or `device`
/// is not the CPU (a GPU's kernels run asynchronously; not timed here).
ArmCeiling measureCeiling(ArmKind kind, double flops_per_sample, const CeilingLayer& layer,
                          int64_t m, torch::Device device, torch::Dtype dtype);

/// Each arm's measured ceiling into ArmRun::ceiling, timed once per micro-batch (arms of one
/// size share it), on separate tensors and drawing no random numbers, so training is as
/// without it. Returns the ceilings of the arms whose model counts its FLOPs, for RunInfo.
std::vector<ArmCeiling> measureCeilings(const std::vector<std::unique_ptr<ArmRun>>& arms,
                                        torch::Device device, torch::Dtype dtype);

}  // namespace accumlab
