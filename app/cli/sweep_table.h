// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "accumlab/run_store.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_store.h"
#include "store_command.h"

namespace accumlab::cli {

/// The sweep's points as a table, then its fits in plain words.
std::string formatSweep(const SweepDetail& sweep, const SweepAnalysis& analysis);
/// `{id, name, target, points: [...], fit: {s_min, e_min, b_crit, r2} | null, b_simple,
/// variance_slope: {slope, ci_low, ci_high} | null}`.
nlohmann::json sweepJson(const SweepDetail& sweep, const SweepAnalysis& analysis);

/// The points as CSV: one row per point, the JSON fields as columns, empty when unmeasured.
std::string sweepCsv(const SweepDetail& sweep);

/// `accumlab-cli show-sweep ID [--json|--csv]`: a stored sweep's points and fits.
class ShowSweepCommand : public StoreCommand {
 public:
  explicit ShowSweepCommand(CLI::App& parent);
  int execute() override;

 private:
  int64_t id_ = 0;
  bool json_ = false;
  bool csv_ = false;
};

}  // namespace accumlab::cli
