// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accumlab/run_store.h"

namespace accumlab::cli {

/// The base of the subcommands that read or change the run store (list, show, …): each has
/// `--db PATH` (default: RunStore::defaultPath()).
class StoreCommand {
 public:
  virtual ~StoreCommand() = default;
  /// Runs the command; returns the process exit code. Throws InputError for bad input.
  virtual int execute() = 0;
  /// Whether this subcommand was given on the command line.
  bool chosen() const { return app_->parsed(); }

 protected:
  StoreCommand(CLI::App& parent, const char* name, const char* description);
  /// Opens the store; a missing file is an InputError.
  std::unique_ptr<RunStore> open() const;

  CLI::App* app_;
  std::string db_;
};

/// Parses run ids ("12"); throws InputError naming the first that is not a positive integer.
std::vector<int64_t> parseRunIds(const std::vector<std::string>& texts);

/// A runs-list row as JSON (NaN is null): what `list --json` prints per run.
nlohmann::json rowJson(const RunRow& row);
/// A double as JSON: null for NaN and infinities.
nlohmann::json jsonNumber(double v);

/// All the store subcommands, registered on `parent`.
class StoreCommands {
 public:
  explicit StoreCommands(CLI::App& parent);
  ~StoreCommands();
  /// Runs the chosen store subcommand: true (with `exit_code` set) when one was chosen.
  bool dispatch(int& exit_code);

 private:
  std::vector<std::unique_ptr<StoreCommand>> commands_;
};

}  // namespace accumlab::cli
