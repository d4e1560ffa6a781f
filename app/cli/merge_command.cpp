// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <nlohmann/json.hpp>

#include <iostream>

#include "accumlab/store_merger.h"

namespace accumlab {

// `merge --json`'s objects: each field under its member's name (docs/clusters.md).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MergedRun, source_id, id, uid, added)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MergedStore, path, schema_version, runs, experiments_added,
                                   runs_added, runs_skipped, step_rows_added, sweeps_added,
                                   sweeps_skipped, lesson_results_added, lesson_results_skipped)

}  // namespace accumlab

namespace accumlab::cli {

namespace {

/// "3 runs" or "1 run".
std::string countOf(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

MergeCommand::MergeCommand(CLI::App& parent)
    : StoreCommand(parent, "merge",
                   "Copy the runs of other run stores (with their rows, events, sweeps and "
                   "lesson results) into --db, in one transaction; runs it already holds are "
                   "skipped, so merging again adds nothing") {
  app_->add_option("sources", sources_, "Run stores to merge in (SRC.sqlite …); only read")
      ->required();
  app_->add_flag("--json", json_, "Print one JSON object: per source, what was added and skipped");
}

int MergeCommand::execute() {
  // The destination may be new: merging is how a cluster's stores come home.
  RunStore store(db_.empty() ? RunStore::defaultPath() : db_);
  const std::vector<MergedStore> merged = StoreMerger(store).merge(sources_);
  if (json_) {
    const nlohmann::json out = {{"db", store.path()}, {"sources", merged}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const MergedStore& m : merged) {
    std::cout << m.path << ": " << countOf(m.runs_added, "run", "runs") << " added ("
              << countOf(m.step_rows_added, "step row", "step rows") << "), " << m.runs_skipped
              << " already there; " << countOf(m.sweeps_added, "sweep", "sweeps") << " and "
              << countOf(m.lesson_results_added, "lesson result", "lesson results") << " added\n";
  }
  std::cout << "Merged " << countOf(static_cast<int64_t>(merged.size()), "store", "stores")
            << " into " << store.path() << "\n";
  return 0;
}

}  // namespace accumlab::cli
