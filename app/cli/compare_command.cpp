// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <cmath>
#include <functional>
#include <iostream>

#include "accumlab/input_error.h"
#include "summary_table.h"
#include "text_table.h"

namespace accumlab::cli {

namespace {

/// One compared quantity: its label, how to read it, and how to print it.
struct Quantity {
  const char* label;
  const char* key;
  std::function<double(const ArmSummary&)> get;
  const char* fmt;
};

const std::vector<Quantity>& quantities() {
  static const std::vector<Quantity> kQuantities = {
      {"steps", "steps", [](const ArmSummary& s) { return double(s.steps); }, "%.0f"},
      {"samples seen", "samples_seen", [](const ArmSummary& s) { return double(s.samples_seen); },
       "%.0f"},
      {"final train loss", "final_train_loss",
       [](const ArmSummary& s) { return s.final_train_loss; }, "%.4g"},
      {"val loss", "val_loss", [](const ArmSummary& s) { return s.val_loss; }, "%.4g"},
      {"val accuracy", "val_accuracy", [](const ArmSummary& s) { return s.val_accuracy; }, "%.4f"},
      // The detrended form, as in run's table and the report (the plain one also counts
      // the loss's fall inside the window).
      {"loss var (detrended)", "loss_variance_detrended",
       [](const ArmSummary& s) { return s.loss_variance_detrended; }, "%.4g"},
      {"trΣ/B_eff", "noise_per_update", [](const ArmSummary& s) { return s.noise_per_update; },
       "%.4g"},
      {"B_simple", "b_simple", [](const ArmSummary& s) { return s.b_simple; }, "%.1f"},
      {"samples/s", "samples_per_s", [](const ArmSummary& s) { return s.samples_per_s; }, "%.0f"},
      {"peak tensors (MiB)", "peak_tensor_mib",
       [](const ArmSummary& s) {
         return s.peak_tensor_bytes >= 0 ? double(s.peak_tensor_bytes) / (1 << 20) : kNaN;
       },
       "%.1f"},
      {"peak RSS (MiB)", "peak_memory_mib",
       [](const ArmSummary& s) {
         return s.peak_memory_bytes > 0 ? double(s.peak_memory_bytes) / (1 << 20) : kNaN;
       },
       "%.1f"},
      {"training time of the arm (s)", "wall_s", [](const ArmSummary& s) { return s.wall_s; },
       "%.2f"},
  };
  return kQuantities;
}

}  // namespace

CompareCommand::CompareCommand(CLI::App& parent)
    : StoreCommand(parent, "compare",
                   "Compare runs side by side: summaries with ratios to the first, config diff") {
  app_->add_option("ids", ids_, "Run ids; the first is the reference")->required();
  app_->add_flag("--json", json_, "Print the comparison as JSON");
}

int CompareCommand::execute() {
  const std::vector<int64_t> ids = parseRunIds(ids_);
  const auto store = open();
  std::vector<RunDetail> runs;
  std::vector<std::string> configs;
  for (int64_t id : ids) {
    runs.push_back(store->run(id));
    configs.push_back(runs.back().config_json);
  }
  const std::vector<ConfigDifference> diffs = diffConfigs(configs);

  if (json_) {
    nlohmann::json j = {{"runs", nlohmann::json::array()},
                        {"config_diff", nlohmann::json::object()}};
    for (const RunDetail& d : runs) {
      nlohmann::json run = rowJson(d.row);
      for (const Quantity& q : quantities()) {
        const double v = q.get(d.summary), ref = q.get(runs.front().summary);
        run["summary"][q.key] = jsonNumber(v);
        run["ratio_to_first"][q.key] = jsonNumber(v / ref);
      }
      j["runs"].push_back(run);
    }
    for (const ConfigDifference& d : diffs) {
      nlohmann::json values = nlohmann::json::array();
      for (const auto& v : d.values) values.push_back(nlohmann::json::parse(v, nullptr, false));
      j["config_diff"][d.key] = values;
    }
    std::cout << j.dump(2) << std::endl;
    return 0;
  }

  std::vector<std::string> header = {""};
  for (const RunDetail& d : runs) {
    header.push_back("run " + std::to_string(d.row.id) + " (" + toString(d.row.arm) + ")");
  }
  TextTable table(header);
  std::vector<std::string> status = {"status"}, mk = {"m x K"}, data = {"data / model"};
  for (const RunDetail& d : runs) {
    status.push_back(toString(d.row.status));
    mk.push_back(std::to_string(d.row.micro_batch) + " x " + std::to_string(d.row.accum));
    data.push_back(d.row.dataset + " / " + d.row.model);
  }
  table.add(status);
  table.add(mk);
  table.add(data);
  for (const Quantity& q : quantities()) {
    std::vector<std::string> row = {q.label};
    const double ref = q.get(runs.front().summary);
    for (size_t i = 0; i < runs.size(); ++i) {
      const double v = q.get(runs[i].summary);
      std::string text = cell(v, q.fmt);
      if (i > 0 && std::isfinite(v) && std::isfinite(ref) && ref != 0) {
        text += " (×" + cell(v / ref, "%.3g") + ")";
      }
      row.push_back(text);
    }
    table.add(row);
  }
  std::cout << table.str() << "\n";
  if (diffs.empty()) {
    std::cout << "The configs are identical.\n";
  } else {
    std::vector<std::string> h = {"config"};
    for (const RunDetail& d : runs) h.push_back("run " + std::to_string(d.row.id));
    TextTable diff(h);
    for (const ConfigDifference& d : diffs) {
      std::vector<std::string> row = {d.key};
      row.insert(row.end(), d.values.begin(), d.values.end());
      diff.add(row);
    }
    std::cout << diff.str();
  }
  return 0;
}

}  // namespace accumlab::cli
