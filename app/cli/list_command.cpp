// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <iostream>

#include "accumlab/sweep_store.h"
#include "cli_main.h"
#include "completion_hints.h"
#include "sweep_table.h"
#include "text_table.h"

namespace accumlab::cli {

ListCommand::ListCommand(CLI::App& parent)
    : StoreCommand(parent, "list", "List stored runs, newest first") {
  app_->add_option("--tag", tag_, "Only runs with this tag");
  app_->add_option("--dataset", dataset_, "Only runs on this data SPEC (e.g. spirals)");
  completeWith(app_->add_option("--status", status_,
                                "Only runs with this status: running, finished, stopped, "
                                "diverged, failed, interrupted"),
               {{"running", "finished", "stopped", "diverged", "failed", "interrupted"}});
  app_->add_option("--limit", limit_, "At most this many runs (0: all)")->check(kNonNegative);
  app_->add_flag("--json", json_, "Print a JSON array instead of a table");
  app_->add_flag("--sweeps", sweeps_, "List the sweeps instead of the runs");
}

int ListCommand::listSweeps(RunStore& store) const {
  const std::vector<SweepRow> rows = SweepStore(store).list();
  if (json_) {
    nlohmann::json list = nlohmann::json::array();
    for (const SweepRow& r : rows) {
      list.push_back({{"id", r.id},
                      {"name", r.name},
                      {"created_at", r.created_at},
                      {"points", r.points},
                      {"done", r.done},
                      {"reached", r.reached},
                      {"target", describeTarget(sweepTargetFromSpec(r.spec_json))}});
    }
    std::cout << list.dump(2) << std::endl;
    return 0;
  }
  if (rows.empty()) {
    std::cout << "No sweeps in " << store.path() << ".\n";
    return 0;
  }
  TextTable table({"id", "created", "name", "points", "done", "reached", "target"});
  for (const SweepRow& r : rows) {
    std::string created = r.created_at;
    if (created.size() >= 16) created = created.substr(0, 10) + " " + created.substr(11, 5);
    table.add({std::to_string(r.id), created, r.name, std::to_string(r.points),
               std::to_string(r.done), std::to_string(r.reached),
               describeTarget(sweepTargetFromSpec(r.spec_json))});
  }
  std::cout << table.str();
  return 0;
}

int ListCommand::execute() {
  RunFilter filter;
  filter.tag = tag_;
  filter.dataset = dataset_;
  if (!status_.empty()) filter.status = parseArmStatus(status_);
  filter.limit = limit_;
  const auto store = open();
  if (sweeps_) return listSweeps(*store);
  const std::vector<RunRow> rows = store->listRuns(filter);
  if (json_) {
    nlohmann::json list = nlohmann::json::array();
    for (const RunRow& r : rows) list.push_back(rowJson(r));
    std::cout << list.dump(2) << std::endl;
    return 0;
  }
  if (rows.empty()) {
    std::cout << "No runs"
              << (filter.tag.empty() && filter.dataset.empty() && !filter.status ? "" : " match")
              << " in " << store->path() << ".\n";
    return 0;
  }
  TextTable table({"id", "started", "dataset", "model", "arm", "m×K", "status", "final loss",
                   "val acc", "tags"});
  for (const RunRow& r : rows) {
    std::string started = r.started_at;
    if (started.size() >= 16) started = started.substr(0, 10) + " " + started.substr(11, 5);
    std::string tags;
    for (const auto& t : r.tags) tags += (tags.empty() ? "" : ",") + t;
    table.add({std::to_string(r.id), started, r.dataset, r.model, toString(r.arm),
               batchSizesText(r), toString(r.status), cell(r.final_loss),
               cell(r.val_accuracy * 100, "%.2f%%"), tags});
  }
  std::cout << table.str();
  return 0;
}

}  // namespace accumlab::cli
