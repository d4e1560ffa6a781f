// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <deque>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "accumlab/config_overrides.h"
#include "accumlab/experiment_config.h"

namespace accumlab::cli {

/// The options for every field of ExperimentConfig, `--config FILE` and `--preset NAME`,
/// shared by `run` and `sweep` (docs/cli.md).
class ConfigOptions {
 public:
  /// Registers the options on `app`, except those whose first long name is in `skip` (e.g.
  /// "--micro-batch", which a sweep takes as a list).
  explicit ConfigOptions(CLI::App& app, std::set<std::string> skip = {});

  /// What the command line gives: the config file or preset, and every option given.
  ConfigOverrides overrides() const;
  /// The config file or preset (if any) with every option given on the command line applied
  /// on top (applyOverrides). Not validated (the caller may change fields first).
  ExperimentConfig resolve() const;
  /// A registered option by its first long name ("--micro-batch"); null when skipped.
  CLI::Option* option(const std::string& name) const;

 private:
  /// Registers an option bound to the field `access` selects of an ExperimentConfig (its
  /// default shown in --help); when given on the command line, the value is copied into the
  /// same field of the ConfigOverrides.
  template <typename Access>
  CLI::Option* add(const char* name, Access access, const char* help);
  /// Registers an option read into `text` and parsed into the overrides by `apply`.
  CLI::Option* addText(const char* name, std::string& text, const char* help,
                       std::function<void(ConfigOverrides&, const std::string&)> apply);
  /// Registers an option that names a value of the enum E (its kNames<E>), parsed into the
  /// field `access` selects of the overrides, and completed with E's names.
  template <typename E, typename Access>
  CLI::Option* addEnum(const char* name, Access access, const char* help);
  bool skipped(const char* name) const;

  CLI::App* app_;
  std::set<std::string> skip_;
  ExperimentConfig given_;  ///< values bound to the options
  std::string config_file_;
  std::string preset_;  ///< --preset NAME: the config the options apply to, instead of a file
  std::string memory_budget_, arms_, keep_weights_;
  std::deque<std::string> enum_texts_;  ///< what addEnum's options read (stable addresses)
  bool no_noise_ = false;
  /// Each registered option and how, when given, it sets its field of the overrides.
  std::vector<std::pair<CLI::Option*, std::function<void(ConfigOverrides&)>>> setters_;
};

}  // namespace accumlab::cli
