// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace accumlab::cli {

/// `accumlab-cli completion bash`: prints the bash completion of every subcommand and option
/// registered on the root app, written from that option table (docs/cli.md). The build runs
/// it, and the package installs its output as
/// /usr/share/bash-completion/completions/accumlab-cli.
class CompletionCommand {
 public:
  explicit CompletionCommand(CLI::App& parent);
  bool chosen() const { return app_->parsed(); }
  int execute() const;

 private:
  CLI::App* root_;
  CLI::App* app_;
  std::string shell_;
};

/// The bash completion script of `root`'s subcommands and options.
std::string bashCompletion(const CLI::App& root);

}  // namespace accumlab::cli
