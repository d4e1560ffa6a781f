// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/records.h"

namespace accumlab {

/// What every point of a sweep trains towards.
struct SweepTarget {
  enum class Kind { kLoss, kValAccuracy };
  Kind kind = Kind::kLoss;
  /// kLoss: the debiased-EMA training loss at or below this; kValAccuracy: the validation
  /// accuracy (a fraction) at or above it.
  double value = kNaN;
  double smoothing = 0.9;  ///< s of the debiased EMA of the training loss
};

/// "smoothed training loss ≤ 0.5" or "validation accuracy ≥ 0.8".
std::string describeTarget(const SweepTarget& target);

/// What a sweep is: the config its points start from, its target and how many points train
/// at once. Stored with the sweep as JSON (`{"config", "target": {"kind", "value",
/// "smoothing"}, "jobs", "lesson", "origin"}`) and printed by `sweep --json`: the names are an
/// interface.
struct SweepSpec {
  /// The base config of every point (each sets its own m, K and LR); none in a spec stored
  /// by hand.
  std::optional<ExperimentConfig> config;
  SweepTarget target;
  int jobs = 1;        ///< points trained at once
  std::string lesson;  ///< the lesson that ran the sweep; empty for `accumlab-cli sweep`
  /// The results folder a collected sweep came from (its id in sweep.json, `sweep collect`);
  /// empty for a sweep trained here.
  std::string origin;
};

/// The target as the JSON object text `{"kind": "loss"|"val_accuracy", "value", "smoothing"}`.
std::string sweepTargetToJson(const SweepTarget& target);
/// The spec as a JSON object text (the shape above).
std::string sweepSpecToJson(const SweepSpec& spec);
/// Reads sweepSpecToJson's text; missing or mistyped fields keep their defaults. Throws
/// InputError naming `source` when the text is not JSON or its config is invalid.
SweepSpec sweepSpecFromJson(const std::string& text, const std::string& source);
/// The spec's target, or the default target when the text holds none or is not a spec
/// (never throws: for listing stored sweeps).
SweepTarget sweepTargetFromSpec(const std::string& spec_json);
/// The arm every point of the sweep trains: accum, or a pitfall arm (`sweep --arm`); accum
/// when the text holds none (never throws).
ArmKind sweepArmFromSpec(const std::string& spec_json);

}  // namespace accumlab
