// SPDX-License-Identifier: GPL-3.0-or-later
#include "json_progress_sink.h"

#include <cmath>

#include "completion_hints.h"

namespace accumlab::cli {

namespace {

/// At most this often a `step` object per arm: enough for a progress bar, few enough lines
/// for a reader on another thread.
constexpr auto kStepInterval = std::chrono::milliseconds(250);

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

}  // namespace

CLI::Option* addProgressOption(CLI::App& app, ProgressFormat& format) {
  const std::map<std::string, ProgressFormat> names = {{"text", ProgressFormat::kText},
                                                       {"jsonl", ProgressFormat::kJsonl}};
  std::vector<std::string> words;
  for (const auto& [name, value] : names) words.push_back(name);
  return completeWith(
      app.add_option("--progress", format,
                     "Progress on stderr: text (for people) or jsonl (one JSON object per line, "
                     "for programs)")
          ->transform(CLI::CheckedTransformer(names, CLI::ignore_case)),
      {words});
}

void writeJsonLine(std::FILE* out, const nlohmann::json& object) {
  // Invalid UTF-8 in a message (a file name) is replaced, so that every line stays JSON.
  const std::string line = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fprintf(out, "%s\n", line.c_str());
  std::fflush(out);
}

void JsonProgressSink::onRunStarted(const RunInfo& info) {
  budget_ = info.budget_samples;
  nlohmann::json arms = nlohmann::json::array();
  for (ArmKind a : info.config.arms) arms.push_back(toString(a));
  writeJsonLine(out_, {{"event", "run_started"},
                       {"data", info.dataset},
                       {"model", info.model},
                       {"device", info.device},
                       {"budget_samples", budget_},
                       {"micro_batch", info.config.micro_batch},
                       {"accum", info.config.accum},
                       {"arms", arms}});
}

void JsonProgressSink::onStep(const StepRecord& r) {
  const auto now = std::chrono::steady_clock::now();
  auto [it, first] = last_step_.try_emplace(r.arm, now);
  if (!first && now - it->second < kStepInterval) return;
  it->second = now;
  writeJsonLine(out_, {{"event", "step"},
                       {"arm", toString(r.arm)},
                       {"step", r.step},
                       {"samples_seen", r.samples_seen},
                       {"budget_samples", budget_},
                       {"loss", number(r.loss)},
                       {"samples_per_s", number(r.samples_per_s)}});
}

void JsonProgressSink::onEvent(const EventRecord& e) {
  writeJsonLine(out_, {{"event", "event"},
                       {"kind", toString(e.kind)},
                       {"arm", e.arm ? nlohmann::json(toString(*e.arm)) : nlohmann::json()},
                       {"message", e.message}});
}

void JsonProgressSink::onArmFinished(const ArmSummary& s) {
  writeJsonLine(out_, {{"event", "arm_finished"},
                       {"arm", toString(s.arm)},
                       {"status", toString(s.status)},
                       {"steps", s.steps},
                       {"samples_seen", s.samples_seen},
                       {"message", s.message}});
}

void JsonProgressSink::onRunFinished(const RunSummary& summary) {
  writeJsonLine(out_, {{"event", "run_finished"}, {"arms", summary.arms.size()}});
}

}  // namespace accumlab::cli
