#pragma once

#include <torch/torch.h>

#include <memory>
#include <optional>

#include "accumlab/records.h"
#include "accumlab/smoothing.h"
#include "data/sample_stream.h"
#include "models/model.h"
#include "stats/noise_estimator.h"
#include "train/grad_window.h"

namespace accumlab {

/// Everything one arm owns while training: its model replica, optimizer, sample stream and
/// running statistics. Owned and used by the training thread only.
struct Arm {
  Arm(ArmKind kind, std::unique_ptr<Model> model, const Dataset& data, torch::Device device,
      torch::Dtype dtype, uint64_t seed, double noise_ema, int64_t variance_window);

  ArmKind kind;
  std::unique_ptr<Model> model;
  std::vector<torch::Tensor> params;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  GradWindow window;
  SampleStream stream;
  int64_t micro_batch = 0;
  int64_t accum = 0;
  double base_lr = 0;  ///< LR after the scaling rule, before the schedule
  double lr = 0;       ///< LR of the next step
  int64_t step = 0;
  ArmStatus status = ArmStatus::kRunning;
  std::string message;
  int64_t diverged_at_step = -1;
  double train_seconds = 0;  ///< time spent in this arm's windows
  int64_t next_eval = 0;     ///< samples seen at which the next evaluation is due
  NoiseTracker noise;
  RollingVariance losses;
  std::optional<EvalRecord> last_eval;
  double equivalence_rel_diff = kNaN;
  double last_noise_per_update = kNaN;
  double last_b_simple = kNaN;
  int64_t windows_since_probe = 0;  ///< K = 1 arms: windows since the last noise probe
};

}  // namespace accumlab
