// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_table.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "accumlab/input_error.h"
#include "accumlab/sweep_store.h"
#include "summary_table.h"
#include "text_table.h"

namespace accumlab::cli {

std::string formatSweep(const SweepDetail& sweep, const SweepAnalysis& a) {
  std::ostringstream out;
  const SweepTarget target = sweepTargetFromSpec(sweep.row.spec_json);
  out << "Sweep " << sweep.row.id << (sweep.row.name.empty() ? "" : " \"" + sweep.row.name + "\"")
      << ": " << sweep.row.points << " points, " << sweep.row.reached << " reached the target ("
      << describeTarget(target) << ")";
  if (const ArmKind arm = sweepArmFromSpec(sweep.row.spec_json); arm != ArmKind::kAccum) {
    out << ", every point training the wrong recipe " << toString(arm) << " (docs/pitfalls.md)";
  }
  out << "\n";
  TextTable table({"#", "B", "m x K", "lr", "status", "steps→target", "samples→target", "loss var",
                   "probe ratio", "peak tensors", "samples/s", "B_simple", "run"});
  for (const SweepPoint& p : sweep.points) {
    table.add({std::to_string(p.index + 1), std::to_string(p.effectiveBatch()),
               std::to_string(p.micro_batch) + " x " + std::to_string(p.accum), cell(p.lr, "%g"),
               toString(p.status), cell(p.steps_to_target, "%.1f"),
               cell(p.samples_to_target, "%.0f"), cell(p.loss_variance),
               cell(p.variance_probe_ratio, "%.2f"),
               p.peak_tensor_bytes >= 0 ? formatBytes(p.peak_tensor_bytes, ByteUnit::kMiB) : "-",
               cell(p.samples_per_s, "%.0f"), cell(p.b_simple, "%.1f"),
               p.run_id > 0 ? std::to_string(p.run_id) : "-"});
  }
  out << table.str();
  if (a.steps_fit) {
    const StepsFit& f = *a.steps_fit;
    out << "steps to target: S(B) = S_min + E_min/B with S_min = " << cell(f.s_min, "%.1f")
        << " steps, E_min = " << cell(f.e_min, "%.0f")
        << " samples, B_crit = E_min/S_min = " << cell(f.b_crit, "%.1f")
        << " (R² = " << cell(f.r2, "%.3f") << ", " << f.points
        << " batch sizes at their best LR)\n";
  } else {
    out << "steps to target: no fit (" << a.steps_fit_error << ")\n";
  }
  out << "B_simple near the target (median of the points that reached it): "
      << cell(a.b_simple, "%.1f") << "\n";
  if (a.variance_slope) {
    const SlopeFit& v = *a.variance_slope;
    out << "loss variance against B: slope " << cell(v.slope, "%.2f") << " ["
        << cell(v.ci_low, "%.2f") << ", " << cell(v.ci_high, "%.2f") << "] (90%) · theory −1\n";
  } else {
    out << "loss variance against B: no fit (" << a.variance_slope_error << ")\n";
  }
  return out.str();
}

nlohmann::json sweepJson(const SweepDetail& sweep, const SweepAnalysis& a) {
  using nlohmann::json;
  json points = json::array();
  for (const SweepPoint& p : sweep.points) points.push_back(json::parse(sweepPointToJson(p)));
  const SweepTarget target = sweepTargetFromSpec(sweep.row.spec_json);
  json out = {{"id", sweep.row.id},
              {"name", sweep.row.name},
              {"created_at", sweep.row.created_at},
              {"target", json::parse(sweepTargetToJson(target))},
              {"points", points},
              {"b_simple", jsonNumber(a.b_simple)}};
  if (a.steps_fit) {
    out["fit"] = {{"s_min", jsonNumber(a.steps_fit->s_min)},
                  {"e_min", jsonNumber(a.steps_fit->e_min)},
                  {"b_crit", jsonNumber(a.steps_fit->b_crit)},
                  {"r2", jsonNumber(a.steps_fit->r2)},
                  {"points", a.best_points}};
  } else {
    out["fit"] = nullptr;
    out["fit_error"] = a.steps_fit_error;
  }
  if (a.variance_slope) {
    out["variance_slope"] = {{"slope", jsonNumber(a.variance_slope->slope)},
                             {"ci_low", jsonNumber(a.variance_slope->ci_low)},
                             {"ci_high", jsonNumber(a.variance_slope->ci_high)},
                             {"r2", jsonNumber(a.variance_slope->r2)}};
  } else {
    out["variance_slope"] = nullptr;
    out["variance_slope_error"] = a.variance_slope_error;
  }
  return out;
}

ShowSweepCommand::ShowSweepCommand(CLI::App& parent)
    : StoreCommand(parent, "show-sweep", "Show a stored sweep: its points and fits") {
  app_->add_option("id", id_, "Sweep id (see `accumlab-cli list --sweeps`)")->required();
  auto* json = app_->add_flag("--json", json_, "Print JSON instead of a table");
  app_->add_flag("--csv", csv_, "Print the points as CSV (one row per point) instead")
      ->excludes(json);
}

std::string sweepCsv(const SweepDetail& sweep) {
  std::ostringstream out;
  const std::vector<std::string> keys = {"index",
                                         "micro_batch",
                                         "accum",
                                         "effective_batch",
                                         "lr",
                                         "run_id",
                                         "status",
                                         "steps_to_target",
                                         "samples_to_target",
                                         "loss_variance",
                                         "loss_variance_count",
                                         "variance_probe_ratio",
                                         "peak_tensor_bytes",
                                         "samples_per_s",
                                         "b_simple",
                                         "val_accuracy",
                                         "steps",
                                         "message"};
  out << "sweep_id";
  for (const auto& k : keys) out << ',' << k;
  out << '\n';
  for (const SweepPoint& p : sweep.points) {
    const nlohmann::json j = nlohmann::json::parse(sweepPointToJson(p));
    out << sweep.row.id;
    for (const auto& k : keys) {
      out << ',';
      const nlohmann::json& v = j.at(k);
      if (v.is_null()) continue;  // an empty cell: not measured
      if (v.is_string()) {
        std::string text = v.get<std::string>();
        std::string quoted;
        for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
        out << '"' << quoted << '"';
      } else {
        out << v.dump();
      }
    }
    out << '\n';
  }
  return out.str();
}

int ShowSweepCommand::execute() {
  const auto store = open();
  const SweepDetail sweep = SweepStore(*store).get(id_);
  const SweepAnalysis analysis = analyzeSweep(sweep.points);
  if (csv_) {
    std::cout << sweepCsv(sweep) << std::flush;
  } else if (json_) {
    std::cout << sweepJson(sweep, analysis).dump(2) << std::endl;
  } else {
    std::cout << formatSweep(sweep, analysis);
  }
  return 0;
}

}  // namespace accumlab::cli
