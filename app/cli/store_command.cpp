// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_command.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "accumlab/input_error.h"
#include "accumlab/run_exporter.h"
#include "store_subcommands.h"
#include "sweep_table.h"

namespace accumlab::cli {

StoreCommand::StoreCommand(CLI::App& parent, const char* name, const char* description)
    : app_(parent.add_subcommand(name, description)) {
  app_->add_option("--db", db_, "Run database (default: " + RunStore::defaultPath() + ")");
}

std::unique_ptr<RunStore> StoreCommand::open() const {
  StoreOptions options;
  options.create_if_missing = false;
  return std::make_unique<RunStore>(db_.empty() ? RunStore::defaultPath() : db_, options);
}

std::vector<int64_t> parseRunIds(const std::vector<std::string>& texts) {
  std::vector<int64_t> ids;
  for (const std::string& t : texts) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || errno != 0 || v <= 0) {
      throw InputError("'" + t +
                       "' is not a run id; ids are positive integers as "
                       "`accumlab-cli list` shows them");
    }
    ids.push_back(v);
  }
  return ids;
}

nlohmann::json jsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json rowJson(const RunRow& r) { return nlohmann::json::parse(runRowJson(r)); }

StoreCommands::StoreCommands(CLI::App& parent) {
  commands_.push_back(std::make_unique<ListCommand>(parent));
  commands_.push_back(std::make_unique<ShowCommand>(parent));
  commands_.push_back(std::make_unique<ShowSweepCommand>(parent));
  commands_.push_back(std::make_unique<CompareCommand>(parent));
  commands_.push_back(std::make_unique<ExportCommand>(parent));
  commands_.push_back(std::make_unique<ExportModelCommand>(parent));
  commands_.push_back(std::make_unique<TagCommand>(parent));
  commands_.push_back(std::make_unique<AuditCommand>(parent));
  commands_.push_back(std::make_unique<NoteCommand>(parent));
  commands_.push_back(std::make_unique<DeleteCommand>(parent));
  commands_.push_back(std::make_unique<MergeCommand>(parent));
}

StoreCommands::~StoreCommands() = default;

bool StoreCommands::dispatch(int& exit_code) {
  for (auto& c : commands_) {
    if (c->chosen()) {
      exit_code = c->execute();
      return true;
    }
  }
  return false;
}

}  // namespace accumlab::cli
