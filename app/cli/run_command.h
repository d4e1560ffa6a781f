#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab::cli {

/// The `run` subcommand: options for every field of ExperimentConfig (DESIGN.md §8).
class RunCommand {
 public:
  explicit RunCommand(CLI::App& parent);
  /// Runs the experiment; returns the process exit code.
  int execute();

 private:
  /// The config file (if any) with every option given on the command line applied on top.
  ExperimentConfig resolveConfig() const;
  /// Registers an option bound to the field `access` selects; when given on the command
  /// line, the field is copied into the resolved config.
  template <typename Access>
  CLI::Option* add(const char* name, Access access, const char* help);

  CLI::App* app_;
  ExperimentConfig given_;  ///< values bound to the options
  std::string config_file_;
  std::string arms_, optimizer_, scaling_, schedule_, policy_, dtype_, task_;
  std::string memory_budget_;  ///< --memory-budget SIZE: choose m and K to fit it
  int64_t effective_batch_ = 0;  ///< --effective-batch B, with --memory-budget
  bool no_noise_ = false;
  bool json_ = false;
  bool quiet_ = false;
  std::string db_;         ///< --db: the run store (default RunStore::defaultPath())
  bool no_store_ = false;  ///< --no-store
  std::vector<std::pair<CLI::Option*, std::function<void(ExperimentConfig&)>>> overrides_;
};

}  // namespace accumlab::cli
