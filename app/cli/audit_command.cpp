// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "accumlab/audit_file.h"
#include "accumlab/audit_store.h"
#include "accumlab/audit_verdict.h"
#include "accumlab/input_error.h"
#include "text_table.h"

namespace accumlab {

// `audit --json`'s verdict: each field under its member's name, NaN as null (docs/audit.md).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AuditVerdict, verdict, accumulation, sentence, note, windows,
                                   audited, largest_rel_diff, scale, cosine, rel_diff)

}  // namespace accumlab

namespace accumlab::cli {
namespace {

std::string countsText(const AuditWindow& w) {
  std::string out;
  for (double c : w.counts) out += (out.empty() ? "" : "+") + cell(c, "%.0f");
  return out.empty() ? "-" : out + " " + w.unit;
}

std::string matchText(const AuditWindow& w) {
  if (!w.audited) return "(not compared)";
  if (w.match.empty()) return "no known recipe";
  std::string out;
  for (const auto& m : w.match) out += (out.empty() ? "" : ", ") + m;
  return out;
}

}  // namespace

AuditCommand::AuditCommand(CLI::App& parent)
    : StoreCommand(parent, "audit",
                   "Judge an audit of your own PyTorch loop (python/accumlab writes it): the "
                   "verdict table, and with --db store it beside its reference") {
  app_->add_option("file", file_, "The audit file (JSON lines) that audit.watch wrote")->required();
  app_->add_flag("--json", json_, "Print one JSON object with the verdict");
}

int AuditCommand::execute() {
  // Read and judge the whole file before the store is touched: a bad file changes nothing.
  if (!db_.empty() && RunStore::wouldOverwrite(db_, file_)) {
    throw InputError(file_ + " is the run store (or a journal of it), not an audit file");
  }
  const AuditFile f = readAuditFile(file_);
  const AuditVerdict v = judgeAudit(f);
  nlohmann::json stored;
  if (!db_.empty()) {
    const StoredAudit a = storeAudit(db_, f, v);
    stored = {{"db", db_},
              {"experiment_id", a.experiment_id},
              {"run_ids", {{"reference", a.reference_run}, {kAuditLoopName, a.loop_run}}}};
  }
  if (json_) {
    nlohmann::json j = v;
    j.update({{"file", f.path},
              {"batch_dependent", f.batch_dependent},
              {"model", f.model},
              {"loss", f.loss},
              {"optimizer", f.optimizer},
              {"dtype", f.dtype}});
    if (!stored.is_null()) j["stored"] = stored;
    std::cout << j.dump(2) << std::endl;
    return 0;
  }
  std::cout << "Audit of " << f.path << ": " << f.model << " (" << f.parameters
            << " parameters), loss " << f.loss << ", " << f.optimizer << ", " << f.dtype << ", "
            << v.windows << " updates, " << v.audited << " compared\n\n";
  TextTable table({"update", "window", "per micro-batch", "vs big batch", "scale", "matches"});
  for (const AuditWindow& w : f.windows) {
    if (!w.audited && f.every > 1) continue;  // every=N: only the compared windows
    table.add({std::to_string(w.window), w.irregular.empty() ? "regular" : w.irregular,
               countsText(w), cell(w.rel_diff, "%.2e"), cell(w.scale, "%.4f"), matchText(w)});
  }
  std::cout << table.str() << "\nverdict: " << v.verdict << "\n" << v.sentence << "\n";
  if (!v.note.empty()) std::cout << v.note << "\n";
  if (!stored.is_null()) {
    std::cout << "Stored as experiment " << stored["experiment_id"].get<int64_t>() << " in " << db_
              << " (runs " << stored["run_ids"]["reference"].get<int64_t>() << " reference, "
              << stored["run_ids"][kAuditLoopName].get<int64_t>() << " your loop)\n";
  }
  return 0;
}

}  // namespace accumlab::cli
