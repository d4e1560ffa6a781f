// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab {

/// The optimizer fields a command line gives (OptimizerConfig's, by the same names).
struct OptimizerOverrides {
  std::optional<OptimizerKind> kind;  ///< --optimizer
  std::optional<double> lr;           ///< --lr
  std::optional<double> momentum;     ///< --momentum
  std::optional<bool> nesterov;       ///< --nesterov
  std::optional<double> weight_decay;
  std::optional<double> beta1;
  std::optional<double> beta2;
  std::optional<double> eps;                  ///< no command line gives it yet
  std::optional<LrScaling> scaling;           ///< --lr-scaling
  std::optional<LrSchedule> schedule;         ///< --lr-schedule
  std::optional<int64_t> warmup_samples;      ///< --warmup-samples
  std::optional<int64_t> step_every_samples;  ///< --step-every
  std::optional<double> step_gamma;           ///< --step-gamma
  std::optional<double> clip_norm;            ///< --clip-norm
};

/// What a command line says about the experiment: where it starts (a config file, else a
/// preset, else what the program starts from otherwise) and each field it gives, to be set
/// over that start. ExperimentConfig's fields by the same names, each empty unless given.
/// `accumlab-cli run` and `sweep` fill every field (app/cli/config_options.cpp); the app's
/// command line fills the data, the model, m, K and the budget in samples
/// (ui/window/app_options.cpp); both then start from startingConfig() and applyOverrides().
struct ConfigOverrides {
  std::string config_file;  ///< --config FILE (empty: none)
  std::string preset;       ///< --preset NAME (empty: none)

  std::optional<std::string> name;
  std::optional<std::string> data;  ///< --data SPEC
  std::optional<std::string> label;
  std::optional<Task> task;
  std::optional<double> val_fraction;
  std::optional<TextSplit> text_split;
  std::optional<int64_t> max_len;
  std::optional<TokenLoss> token_loss;
  std::optional<int64_t> synthetic_samples;
  std::optional<std::string> model;    ///< --model SPEC
  std::optional<int64_t> micro_batch;  ///< --micro-batch, m
  std::optional<int64_t> accum;        ///< --accum, K
  std::optional<int64_t> memory_budget;
  std::optional<std::vector<ArmKind>> arms;
  OptimizerOverrides optimizer;
  std::optional<WindowPolicy> window_policy;
  std::optional<DType> dtype;
  std::optional<std::string> device;
  std::optional<uint64_t> seed;
  std::optional<double> epochs;    ///< a budget in epochs: the samples' budget is cleared
  std::optional<int64_t> samples;  ///< a budget in samples: the epochs' budget is cleared
  std::optional<int64_t> eval_every;
  std::optional<bool> noise_stats;  ///< --no-noise-stats gives false
  std::optional<int64_t> grad_check_every;
  std::optional<int64_t> variance_window;
  std::optional<int64_t> probe_repeats;
  std::optional<int64_t> probe_every;
  std::optional<double> noise_ema;  ///< no command line gives it yet
  std::optional<int> threads;
  std::optional<int> arm_threads;
  std::optional<int64_t> workers;
  std::optional<bool> keep_weights;  ///< --keep-weights on|off
};

/// The config a command line starts from: `config_file`'s, else the preset's, else
/// `otherwise`. Throws InputError naming the file or the presets.
ExperimentConfig startingConfig(const ConfigOverrides& overrides, ExperimentConfig otherwise);
/// Sets every field `overrides` gives on `config`. A budget in samples clears the budget in
/// epochs and the other way round, so that the budget given is the one that counts. The
/// file and the preset are startingConfig()'s. Not validated (the caller may change more).
void applyOverrides(const ConfigOverrides& overrides, ExperimentConfig* config);

}  // namespace accumlab
