// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli compare`: puts runs' summaries side by side, with ratios to the first run and a
/// config diff.
class CompareCommand : public StoreCommand {
 public:
  explicit CompareCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> ids_;
  bool json_ = false;
};

}  // namespace accumlab::cli
