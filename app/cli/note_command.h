// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli note`: sets a run's note (an empty text clears it).
class NoteCommand : public StoreCommand {
 public:
  explicit NoteCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string id_;
  std::string text_;
};

}  // namespace accumlab::cli
