// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli tag`: adds tags to a run (or removes them with --remove).
class TagCommand : public StoreCommand {
 public:
  explicit TagCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string id_;
  std::vector<std::string> tags_;
  bool remove_ = false;
};

}  // namespace accumlab::cli
