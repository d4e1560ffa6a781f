// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli merge SRC.sqlite… --db DEST`: copies the runs of other stores (made on other
/// machines, or by the tasks of a cluster job) into one, with StoreMerger.
class MergeCommand : public StoreCommand {
 public:
  explicit MergeCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> sources_;
  bool json_ = false;
};

}  // namespace accumlab::cli
