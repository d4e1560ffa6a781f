// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The experiment config's settings, listed once: their keys in a config file, and the members
// of ExperimentConfig and of ConfigOverrides that hold them.

namespace accumlab {

/// Every setting of OptimizerConfig with its JSON key, once: `visit(key, member…)` with the
/// member of each of `o…` (an OptimizerConfig, or OptimizerOverrides: the same names). What
/// configToJson writes, configFromJson reads and applyOverrides sets.
template <typename Visit, typename... O>
void forEachOptimizerField(Visit&& visit, O&... o) {
  visit("kind", o.kind...);
  visit("lr", o.lr...);
  visit("momentum", o.momentum...);
  visit("nesterov", o.nesterov...);
  visit("weight_decay", o.weight_decay...);
  visit("beta1", o.beta1...);
  visit("beta2", o.beta2...);
  visit("eps", o.eps...);
  visit("lr_scaling", o.scaling...);
  visit("lr_schedule", o.schedule...);
  visit("warmup_samples", o.warmup_samples...);
  visit("step_every_samples", o.step_every_samples...);
  visit("step_gamma", o.step_gamma...);
  visit("clip_norm", o.clip_norm...);
}

/// Every setting of ExperimentConfig with its JSON key, once, the optimizer's as one object
/// (`visit("optimizer", …)`): `visit(key, member…)` with the member of each of `c…` (an
/// ExperimentConfig, or ConfigOverrides: the same names). A new setting is one line here, and
/// one in ConfigOverrides.
template <typename Visit, typename... C>
void forEachConfigField(Visit&& visit, C&... c) {
  visit("name", c.name...);
  visit("data", c.data...);
  visit("label", c.label...);
  visit("task", c.task...);
  visit("val_fraction", c.val_fraction...);
  visit("text_split", c.text_split...);
  visit("max_len", c.max_len...);
  visit("token_loss", c.token_loss...);
  visit("synthetic_samples", c.synthetic_samples...);
  visit("model", c.model...);
  visit("micro_batch", c.micro_batch...);
  visit("accum", c.accum...);
  visit("arms", c.arms...);
  visit("optimizer", c.optimizer...);
  visit("window_policy", c.window_policy...);
  visit("dtype", c.dtype...);
  visit("device", c.device...);
  visit("seed", c.seed...);
  visit("epochs", c.epochs...);
  visit("samples", c.samples...);
  visit("eval_every", c.eval_every...);
  visit("noise_stats", c.noise_stats...);
  visit("grad_check_every", c.grad_check_every...);
  visit("variance_window", c.variance_window...);
  visit("probe_repeats", c.probe_repeats...);
  visit("probe_every", c.probe_every...);
  visit("noise_ema", c.noise_ema...);
  visit("memory_budget", c.memory_budget...);
  visit("threads", c.threads...);
  visit("arm_threads", c.arm_threads...);
  visit("workers", c.workers...);
  visit("keep_weights", c.keep_weights...);
}

}  // namespace accumlab
