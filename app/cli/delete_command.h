// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli delete`: deletes runs and all their rows; needs --yes.
class DeleteCommand : public StoreCommand {
 public:
  explicit DeleteCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> ids_;
  bool yes_ = false;
};

}  // namespace accumlab::cli
