// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli list`: lists stored runs (or, with --sweeps, sweeps), newest first, as a
/// table or JSON.
class ListCommand : public StoreCommand {
 public:
  explicit ListCommand(CLI::App& parent);
  int execute() override;

 private:
  int listSweeps(RunStore& store) const;

  std::string tag_, dataset_, status_;
  int64_t limit_ = 0;
  bool json_ = false;
  bool sweeps_ = false;
};

}  // namespace accumlab::cli
