// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <iostream>

#include "accumlab/input_error.h"

namespace accumlab::cli {

DeleteCommand::DeleteCommand(CLI::App& parent)
    : StoreCommand(parent, "delete", "Delete runs with all their metrics (needs --yes)") {
  app_->add_option("ids", ids_, "Run ids")->required();
  app_->add_flag("--yes,-y", yes_, "Confirm the deletion");
}

int DeleteCommand::execute() {
  const std::vector<int64_t> ids = parseRunIds(ids_);
  const auto store = open();
  for (int64_t id : ids) store->run(id);  // every id must exist before anything is asked
  if (!yes_) {
    throw InputError("deleting " + std::to_string(ids.size()) +
                     (ids.size() == 1 ? " run" : " runs") +
                     " removes all their metrics for good; add --yes to confirm");
  }
  store->deleteRuns(ids);
  std::cout << "Deleted " << ids.size() << (ids.size() == 1 ? " run" : " runs") << " from "
            << store->path() << "\n";
  return 0;
}

}  // namespace accumlab::cli
