#pragma once

#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

/// `accumlab-cli list`: lists stored runs, newest first, as a table or JSON.
class ListCommand : public StoreCommand {
 public:
  explicit ListCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string tag_, dataset_, status_;
  int64_t limit_ = 0;
  bool json_ = false;
};

}  // namespace accumlab::cli
