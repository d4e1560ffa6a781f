// SPDX-License-Identifier: GPL-3.0-or-later
// The memory model's probes: the few updates, on the engine itself, that the model is fitted
// to. The model and the budget fit are in core/memory/memory_model.cpp, without LibTorch.
#include "accumlab/memory_model_probe.h"

#include <algorithm>
#include <memory>

#include "accumlab/input_error.h"
#include "data/dataset_factory.h"
#include "memory/arm_memory.h"
#include "models/model.h"
#include "train/arm_stepper.h"
#include "train/device_select.h"

namespace accumlab {

MemoryModel probeMemoryModel(const ExperimentConfig& config, int64_t small, int64_t large) {
  if (small < 1 || large <= small) {
    throw InputError("memory probes need 1 ≤ small < large micro-batches, got " +
                     std::to_string(small) + " and " + std::to_string(large));
  }
  ExperimentConfig c = config;
  c.accum = 1;
  c.noise_stats = false;  // no probe halves, no hooks: one plain update
  c.grad_check_every = 0;
  c.window_policy = WindowPolicy::kStream;  // a micro-batch larger than an epoch still fits
  validateConfig(c);
  const torch::Device device = resolveDevice(c.device);
  const torch::Dtype dtype = c.dtype == DType::kFloat64 ? torch::kFloat64 : torch::kFloat32;
  const Dataset data = loadDataset(c);
  auto factory =
      makeModelFactory(c.model, data.sample_shape, data.num_outputs, c.seed, data.isText());

  auto peakAt = [&](int64_t m, int64_t k) -> int64_t {
    c.micro_batch = m;
    c.accum = k;
    // What accumulating adds depends on the noise statistics where the fused MLP trains
    // (train/fused_mlp.h): without them it adds each gradient in place, with them it holds
    // each micro-batch's own part first, as autograd always does. The K = 1 probes stay
    // plain updates.
    c.noise_stats = k > 1 && config.noise_stats;
    auto memory = std::make_unique<ArmMemory>(device);
    std::unique_ptr<ArmStepper> stepper;
    {
      const auto charge = memory->charge();
      auto model = factory->create();
      model->to(device, dtype);
      stepper = std::make_unique<ArmStepper>(k > 1 ? ArmKind::kAccum : ArmKind::kNoAccum,
                                             std::move(model), data, c, device, dtype, 2 * m * k,
                                             std::move(memory));
    }
    // The second update is the steady state: the optimizer's state (momentum, Adam's
    // moments) is created by the first step, after that window's peak.
    stepper->step();
    stepper->step();
    return stepper->peakTensorBytes();
  };
  MemoryModel model;
  model.k1_splits = config.noise_stats && !factory->create()->batchDependent();
  model.probe_small = small;
  model.probe_large = large;
  const int64_t p_small = peakAt(small, 1);
  const int64_t p_large = peakAt(large, 1);
  const int64_t p_accum = peakAt(small, 2);
  if (p_small < 0 || p_large < 0 || p_accum < 0) return model;
  model.accum_extra_bytes = static_cast<double>(std::max<int64_t>(0, p_accum - p_small));
  model.per_sample_bytes =
      static_cast<double>(p_large - p_small) / static_cast<double>(large - small);
  model.fixed_bytes =
      static_cast<double>(p_small) - model.per_sample_bytes * static_cast<double>(small);
  return model;
}

}  // namespace accumlab
