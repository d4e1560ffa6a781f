// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <iostream>

namespace accumlab::cli {

TagCommand::TagCommand(CLI::App& parent)
    : StoreCommand(parent, "tag", "Tag a run (or untag it with --remove)") {
  app_->add_option("id", id_, "Run id")->required();
  app_->add_option("tags", tags_, "Tags: one word each")->required();
  app_->add_flag("--remove", remove_, "Remove these tags instead");
}

int TagCommand::execute() {
  const int64_t id = parseRunIds({id_}).front();
  const auto store = open();
  if (remove_) {
    store->removeTags(id, tags_);
  } else {
    store->addTags(id, tags_);
  }
  std::string tags;
  for (const auto& t : store->run(id).row.tags) tags += (tags.empty() ? "" : ", ") + t;
  std::cout << "Run " << id << " tags: " << (tags.empty() ? "none" : tags) << "\n";
  return 0;
}

}  // namespace accumlab::cli
