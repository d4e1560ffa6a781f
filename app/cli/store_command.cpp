// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_command.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "accumlab/input_error.h"
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

nlohmann::json rowJson(const RunRow& r) {
  return {{"id", r.id},
          {"experiment_id", r.experiment_id},
          {"experiment_name", r.experiment_name},
          {"name", r.name},
          {"started_at", r.started_at},
          {"ended_at", r.ended_at.empty() ? nlohmann::json() : nlohmann::json(r.ended_at)},
          {"dataset", r.dataset},
          {"model", r.model},
          {"arm", toString(r.arm)},
          {"micro_batch", r.micro_batch},
          {"accum", r.accum},
          {"last_micro_batch", r.last_micro_batch},
          {"last_accum", r.last_accum},
          {"status", toString(r.status)},
          {"steps", r.steps},
          {"samples_seen", r.samples_seen},
          {"final_loss", jsonNumber(r.final_loss)},
          {"val_loss", jsonNumber(r.val_loss)},
          {"val_accuracy", jsonNumber(r.val_accuracy)},
          {"tags", r.tags}};
}

StoreCommands::StoreCommands(CLI::App& parent) {
  commands_.push_back(std::make_unique<ListCommand>(parent));
  commands_.push_back(std::make_unique<ShowCommand>(parent));
  commands_.push_back(std::make_unique<ShowSweepCommand>(parent));
  commands_.push_back(std::make_unique<CompareCommand>(parent));
  commands_.push_back(std::make_unique<ExportCommand>(parent));
  commands_.push_back(std::make_unique<TagCommand>(parent));
  commands_.push_back(std::make_unique<AuditCommand>(parent));
  commands_.push_back(std::make_unique<NoteCommand>(parent));
  commands_.push_back(std::make_unique<DeleteCommand>(parent));
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
