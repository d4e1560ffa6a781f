// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli audit FILE.jsonl`: judges an audit of a user's own PyTorch loop
/// (python/accumlab, docs/audit.md), prints its windows and verdict, and with --db stores it
/// as an experiment: the reference (the exact big batch) and the run named "your loop".
class AuditCommand : public StoreCommand {
 public:
  explicit AuditCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string file_;
  bool json_ = false;
};

}  // namespace accumlab::cli
