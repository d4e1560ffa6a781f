// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/config_overrides.h"

#include <utility>

namespace accumlab {

namespace {

/// Sets `field` to the value given, when one is.
template <typename T, typename Given>
void setIfGiven(T& field, const std::optional<Given>& given) {
  if (given) field = *given;
}

}  // namespace

ExperimentConfig startingConfig(const ConfigOverrides& overrides, ExperimentConfig otherwise) {
  if (!overrides.config_file.empty()) return loadConfigFile(overrides.config_file);
  if (!overrides.preset.empty()) return presetExperiment(overrides.preset);
  return otherwise;
}

void applyOverrides(const ConfigOverrides& o, ExperimentConfig* config) {
  ExperimentConfig& c = *config;
  setIfGiven(c.name, o.name);
  setIfGiven(c.data, o.data);
  setIfGiven(c.label, o.label);
  setIfGiven(c.task, o.task);
  setIfGiven(c.val_fraction, o.val_fraction);
  setIfGiven(c.text_split, o.text_split);
  setIfGiven(c.max_len, o.max_len);
  setIfGiven(c.token_loss, o.token_loss);
  setIfGiven(c.synthetic_samples, o.synthetic_samples);
  setIfGiven(c.model, o.model);
  setIfGiven(c.micro_batch, o.micro_batch);
  setIfGiven(c.accum, o.accum);
  setIfGiven(c.memory_budget, o.memory_budget);
  setIfGiven(c.arms, o.arms);
  setIfGiven(c.optimizer.kind, o.optimizer.kind);
  setIfGiven(c.optimizer.lr, o.optimizer.lr);
  setIfGiven(c.optimizer.momentum, o.optimizer.momentum);
  setIfGiven(c.optimizer.nesterov, o.optimizer.nesterov);
  setIfGiven(c.optimizer.weight_decay, o.optimizer.weight_decay);
  setIfGiven(c.optimizer.beta1, o.optimizer.beta1);
  setIfGiven(c.optimizer.beta2, o.optimizer.beta2);
  setIfGiven(c.optimizer.scaling, o.optimizer.scaling);
  setIfGiven(c.optimizer.schedule, o.optimizer.schedule);
  setIfGiven(c.optimizer.warmup_samples, o.optimizer.warmup_samples);
  setIfGiven(c.optimizer.step_every_samples, o.optimizer.step_every_samples);
  setIfGiven(c.optimizer.step_gamma, o.optimizer.step_gamma);
  setIfGiven(c.optimizer.clip_norm, o.optimizer.clip_norm);
  setIfGiven(c.window_policy, o.window_policy);
  setIfGiven(c.dtype, o.dtype);
  setIfGiven(c.device, o.device);
  setIfGiven(c.seed, o.seed);
  setIfGiven(c.epochs, o.epochs);
  setIfGiven(c.samples, o.samples);
  setIfGiven(c.eval_every, o.eval_every);
  setIfGiven(c.noise_stats, o.noise_stats);
  setIfGiven(c.keep_weights, o.keep_weights);
  setIfGiven(c.grad_check_every, o.grad_check_every);
  setIfGiven(c.variance_window, o.variance_window);
  setIfGiven(c.probe_repeats, o.probe_repeats);
  setIfGiven(c.probe_every, o.probe_every);
  setIfGiven(c.threads, o.threads);
  setIfGiven(c.arm_threads, o.arm_threads);
  setIfGiven(c.workers, o.workers);
  if (o.epochs) c.samples = 0;
  if (o.samples) c.epochs = 0;
}

}  // namespace accumlab
