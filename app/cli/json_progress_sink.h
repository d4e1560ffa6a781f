// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "accumlab/metrics_sink.h"

namespace accumlab::cli {

/// How `run` and `sweep` report progress on stderr: lines for people (the default), or one
/// JSON object per line for programs (`--progress jsonl`, which the desktop app reads). The
/// JSON names are an interface (docs/cli.md, "Progress for
/// programs"); the text is not.
enum class ProgressFormat { kText, kJsonl };

/// Registers `--progress text|jsonl` on `app`, read into `format`.
CLI::Option* addProgressOption(CLI::App& app, ProgressFormat& format);

/// Writes `object` on one line of `out` (compact, UTF-8) and flushes it.
void writeJsonLine(std::FILE* out, const nlohmann::json& object);

/// `run --progress jsonl`: run_started, step (per arm, at most every kStepInterval and at
/// each arm's end), event, arm_finished and run_finished objects, each with an "event" name.
/// Called on the training thread only.
class JsonProgressSink : public MetricsSink {
 public:
  explicit JsonProgressSink(std::FILE* out) : out_(out) {}

  void onRunStarted(const RunInfo& info) override;
  void onStep(const StepRecord& record) override;
  void onEvent(const EventRecord& record) override;
  void onArmFinished(const ArmSummary& summary) override;
  void onRunFinished(const RunSummary& summary) override;

 private:
  std::FILE* out_;
  int64_t budget_ = 0;
  std::map<ArmKind, std::chrono::steady_clock::time_point> last_step_;  ///< per arm
};

}  // namespace accumlab::cli
