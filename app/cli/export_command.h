// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli export`: writes runs' metrics, evals, config and summary to a CSV or JSON file,
/// or as TensorBoard logs into a folder.
class ExportCommand : public StoreCommand {
 public:
  explicit ExportCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> ids_;
  std::string format_;
  std::string out_;
};

}  // namespace accumlab::cli
