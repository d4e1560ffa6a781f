// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/config_overrides.h"

#include <optional>

#include "config/config_fields.h"

namespace accumlab {

namespace {

/// Sets each field of a config to the override of the same name, where one is given.
struct SetIfGiven {
  template <typename T, typename Given>
  void operator()(const char*, T& field, const std::optional<Given>& given) const {
    if (given) field = *given;
  }
  void operator()(const char*, OptimizerConfig& field, const OptimizerOverrides& given) const {
    forEachOptimizerField(*this, field, given);
  }
};

}  // namespace

ExperimentConfig startingConfig(const ConfigOverrides& overrides, ExperimentConfig otherwise) {
  if (!overrides.config_file.empty()) return loadConfigFile(overrides.config_file);
  if (!overrides.preset.empty()) return presetExperiment(overrides.preset);
  return otherwise;
}

void applyOverrides(const ConfigOverrides& o, ExperimentConfig* config) {
  ExperimentConfig& c = *config;
  forEachConfigField(SetIfGiven(), c, o);
  if (o.epochs) c.samples = 0;
  if (o.samples) c.epochs = 0;
}

}  // namespace accumlab
