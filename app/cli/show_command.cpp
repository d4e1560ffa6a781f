// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_subcommands.h"

#include <iostream>

#include "accumlab/format_bytes.h"
#include "accumlab/input_error.h"
#include "accumlab/variance_ratio.h"
#include "summary_table.h"
#include "text_table.h"

namespace accumlab::cli {

ShowCommand::ShowCommand(CLI::App& parent)
    : StoreCommand(parent, "show", "Show one run: config, summary, events, tags and note") {
  app_->add_option("id", id_, "Run id (see `accumlab-cli list`)")->required();
  app_->add_flag("--json", json_, "Print the run (without its metric series) as JSON");
}

int ShowCommand::execute() {
  const int64_t id = parseRunIds({id_}).front();
  const auto store = open();
  const RunDetail d = store->run(id);
  const RunRow& r = d.row;
  const int64_t model_bytes = store->weightsBytes(id);
  if (json_) {
    nlohmann::json j = rowJson(r);
    j["message"] = d.summary.message;
    j["device"] = d.device;
    j["dataset_description"] = d.dataset_description;
    j["model_description"] = d.model_description;
    j["note"] = d.note;
    j["model_bytes"] = model_bytes;  // the trained model kept (export-model); 0: none
    j["config"] = nlohmann::json::parse(d.config_json);
    j["summary"] = nlohmann::json::parse(d.summary_json);
    j["events"] = nlohmann::json::array();
    for (const EventRecord& e : d.events) {
      j["events"].push_back({{"samples_seen", e.samples_seen},
                             {"wall_ms", e.wall_ms},
                             {"kind", toString(e.kind)},
                             {"arm", armName(e)},
                             {"message", e.message}});
    }
    std::cout << j.dump(2) << std::endl;
    return 0;
  }
  ArmSummary stored_sizes = d.summary;  // a run that never finished has no summary yet
  stored_sizes.micro_batch = r.micro_batch;
  stored_sizes.accum = r.accum;
  const std::string sizes = armSizesText(stored_sizes);
  std::string tags;
  for (const auto& t : r.tags) tags += (tags.empty() ? "" : ", ") + t;
  std::cout << "Run " << r.id << (r.name.empty() ? "" : " \"" + r.name + "\"") << ": arm "
            << toString(r.arm) << " of experiment " << r.experiment_id
            << (r.experiment_name.empty() ? "" : " \"" + r.experiment_name + "\"") << "\n"
            << "  status    " << toString(r.status)
            << (d.summary.message.empty() ? "" : " (" + d.summary.message + ")") << "\n"
            << "  started   " << r.started_at << "\n"
            << "  ended     " << (r.ended_at.empty() ? "-" : r.ended_at) << "\n"
            << "  data      " << d.dataset_description << "\n"
            << "  model     " << d.model_description << "\n"
            << "  device    " << d.device << "\n"
            << "  m x K     " << sizes << "\n"
            << "  tags      " << (tags.empty() ? "-" : tags) << "\n"
            << "  note      " << (d.note.empty() ? "-" : d.note) << "\n"
            << "  trained   "
            << (model_bytes > 0 ? formatBytes(static_cast<double>(model_bytes)) +
                                      " kept (accumlab-cli export-model " + std::to_string(r.id) +
                                      " --out FILE.pt)"
                                : std::string("no model kept"))
            << "\n\n";

  const ArmSummary& s = d.summary;
  TextTable summary({"summary", "value"});
  summary.add({"steps", std::to_string(s.steps)});
  summary.add({"samples seen", std::to_string(s.samples_seen)});
  summary.add({"final train loss", cell(s.final_train_loss)});
  summary.add({"val loss", cell(s.val_loss)});
  summary.add({"val accuracy", cell(s.val_accuracy * 100, "%.2f%%")});
  summary.add({"loss var (detrended)", cell(s.loss_variance_detrended)});
  summary.add({"loss var (plain)", cell(s.loss_variance)});
  summary.add({"trΣ/B_eff", cell(s.noise_per_update)});
  summary.add({"B_simple", cell(s.b_simple, "%.1f")});
  summary.add({"samples/s", cell(s.samples_per_s, "%.0f")});
  summary.add({"peak tensors",
               s.peak_tensor_bytes >= 0 ? formatBytes(s.peak_tensor_bytes, ByteUnit::kMiB) : "-"});
  summary.add({"peak RSS (process)",
               s.peak_memory_bytes > 0 ? formatBytes(s.peak_memory_bytes, ByteUnit::kMiB) : "-"});
  if (s.grad_equivalence_checks > 0) {
    summary.add(
        {kGradCheckHeadline, cell(s.grad_equivalence_rel_diff_without_kinks, kGradCheckFormat)});
    summary.add({"gradient checks", std::to_string(s.grad_equivalence_checks) + " (" +
                                        std::to_string(s.grad_equivalence_kinks) +
                                        (s.grad_equivalence_kinks == 1 ? " kink" : " kinks") +
                                        ", largest with kinks " +
                                        cell(s.grad_equivalence_rel_diff, kGradCheckFormat) + ")"});
  }
  summary.add({"trajectory diff", cell(s.equivalence_rel_diff, "%.2e")});
  if (s.trajectories_parted_at_step >= 0) {
    summary.add(
        {"trajectories parted", "at update " + std::to_string(s.trajectories_parted_at_step)});
  }
  // The arms take turns on one thread: an arm's own time is a share of the run's.
  summary.add({"training time of this arm", cell(s.wall_s, "%.2f s")});
  summary.add({"wall time of the run", cell(runWallSeconds(d.row), "%.0f s")});
  std::cout << summary.str();
  // The fixed-weight probes of this arm's weights, pooled as the run's summary pools them.
  const std::vector<ProbeRecord> probes = store->series(id).probes;
  if (const auto pooled = poolProbes(probes)) {
    std::cout << "\n" << probeLine(probes.back(), *pooled, static_cast<int64_t>(probes.size()));
  }
  std::cout << "\nconfig\n" << nlohmann::json::parse(d.config_json).dump(2) << "\n\n";

  if (d.events.empty()) {
    std::cout << "No events.\n";
  } else {
    TextTable events({"samples", "time", "event", "arm", "message"});
    for (const EventRecord& e : d.events) {
      events.add({std::to_string(e.samples_seen), cell(e.wall_ms / 1000, "%.2f s"),
                  toString(e.kind), e.arm ? toString(*e.arm) : "all", e.message});
    }
    std::cout << events.str();
  }
  return 0;
}

}  // namespace accumlab::cli
