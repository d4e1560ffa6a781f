// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli show`: prints one run's config, summary, events, tags and note.
class ShowCommand : public StoreCommand {
 public:
  explicit ShowCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string id_;
  bool json_ = false;
};

}  // namespace accumlab::cli
