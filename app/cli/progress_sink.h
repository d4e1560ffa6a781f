// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "accumlab/metrics_sink.h"

namespace accumlab::cli {

/// Shows per-arm progress on stderr: samples, loss, samples/s, ETA. On a terminal it redraws
/// one line per arm in place; otherwise it prints plain lines every few seconds.
/// Called on the training thread only.
class ProgressSink : public MetricsSink {
 public:
  ProgressSink(std::FILE* out, bool interactive);

  void onRunStarted(const RunInfo& info) override;
  void onStep(const StepRecord& record) override;
  void onEvent(const EventRecord& record) override;
  /// Text runs: the line each arm writes at an evaluation, above the arm lines.
  void onEval(const EvalRecord& record) override;
  void onArmFinished(const ArmSummary& summary) override;
  void onRunFinished(const RunSummary& summary) override;

 private:
  struct ArmLine {
    int64_t samples = 0;
    double loss = 0;
    double samples_per_s = 0;
    std::string state = "running";
  };
  void draw(bool force);
  std::string lineFor(const std::string& arm, const ArmLine& line) const;
  double etaSeconds() const;

  std::FILE* out_;
  bool interactive_;
  int64_t budget_ = 0;
  std::map<std::string, ArmLine> arms_;
  std::vector<std::string> order_;
  int drawn_lines_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace accumlab::cli
