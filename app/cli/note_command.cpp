// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <iostream>

namespace accumlab::cli {

NoteCommand::NoteCommand(CLI::App& parent)
    : StoreCommand(parent, "note", "Set a run's note (an empty text clears it)") {
  app_->add_option("id", id_, "Run id")->required();
  app_->add_option("text", text_, "The note (quote it)")->required();
}

int NoteCommand::execute() {
  const int64_t id = parseRunIds({id_}).front();
  open()->setNote(id, text_);
  std::cout << (text_.empty() ? "Cleared the note of run " : "Noted run ") << id << "\n";
  return 0;
}

}  // namespace accumlab::cli
