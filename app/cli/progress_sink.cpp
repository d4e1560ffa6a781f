// SPDX-License-Identifier: GPL-3.0-or-later
#include "progress_sink.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace accumlab::cli {

namespace {
constexpr auto kTerminalRedraw = std::chrono::milliseconds(100);  // ~10 redraws a second
constexpr auto kPlainInterval = std::chrono::seconds(5);          // log lines when piped

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", s / 60, s % 60);
  }
  return buf;
}
}  // namespace

ProgressSink::ProgressSink(std::FILE* out, bool interactive)
    : out_(out), interactive_(interactive) {}

void ProgressSink::onRunStarted(const RunInfo& info) {
  budget_ = info.budget_samples;
  for (ArmKind a : info.config.arms) {
    order_.push_back(toString(a));
    arms_[toString(a)] = ArmLine{};
  }
  std::fprintf(out_,
               "data   %s\nmodel  %s\ndevice %s\nbudget %lld samples per arm, m=%lld K=%lld\n",
               info.dataset.c_str(), info.model.c_str(), info.device.c_str(),
               static_cast<long long>(budget_), static_cast<long long>(info.config.micro_batch),
               static_cast<long long>(info.config.accum));
  std::fflush(out_);
}

void ProgressSink::onStep(const StepRecord& r) {
  ArmLine& line = arms_[toString(r.arm)];
  line.samples = r.samples_seen;
  line.loss = r.loss;
  line.samples_per_s = r.samples_per_s;
  draw(false);
}

void ProgressSink::onEvent(const EventRecord& e) {
  if (endsArm(e.kind) || e.kind == EventKind::kDropped) return;  // shown per arm
  if (interactive_ && drawn_lines_ > 0) {
    std::fprintf(out_, "\033[%dA\033[J", drawn_lines_);  // the event goes above the arm lines
    drawn_lines_ = 0;
  }
  std::fprintf(out_, "event  %s%s\n", e.arm ? (toString(*e.arm) + ": ").c_str() : "",
               e.message.c_str());
  if (interactive_) draw(true);
}

void ProgressSink::onEval(const EvalRecord& e) {
  if (e.text_sample.empty()) return;
  if (interactive_ && drawn_lines_ > 0) {
    std::fprintf(out_, "\033[%dA\033[J", drawn_lines_);
    drawn_lines_ = 0;
  }
  std::fprintf(out_, "writes %s at %lld: %s\n", toString(e.arm).c_str(),
               static_cast<long long>(e.samples_seen), e.text_sample.c_str());
  if (interactive_) draw(true);
}

void ProgressSink::onArmFinished(const ArmSummary& s) {
  const std::string name = toString(s.arm);
  ArmLine& line = arms_[name];
  line.samples = s.samples_seen;
  line.state = toString(s.status);
  if (!s.message.empty()) line.state += ": " + s.message;
  if (interactive_) {
    draw(true);
  } else {
    std::fprintf(out_, "%s\n", lineFor(name, line).c_str());
    std::fflush(out_);
  }
}

void ProgressSink::onRunFinished(const RunSummary&) {
  if (!interactive_) return;
  draw(true);
  std::fflush(out_);
}

double ProgressSink::etaSeconds() const {
  // Arms share one thread, so the time left is the sum of each arm's time left.
  double eta = 0;
  for (const auto& [name, line] : arms_) {
    if (line.state != "running") continue;
    if (line.samples_per_s <= 0) return NAN;
    eta += static_cast<double>(budget_ - line.samples) / line.samples_per_s;
  }
  return eta;
}

std::string ProgressSink::lineFor(const std::string& arm, const ArmLine& l) const {
  char buf[256];
  const double pct =
      budget_ > 0 ? 100.0 * static_cast<double>(l.samples) / static_cast<double>(budget_) : 0;
  // An arm's own ETA counts only its compute; arms share one thread, see the total below.
  const double eta =
      l.samples_per_s > 0 ? static_cast<double>(budget_ - l.samples) / l.samples_per_s : NAN;
  // The arms' names in one column, as wide as the longest (pitfall:schedule-per-micro).
  int width = 10;
  for (const auto& [name, line] : arms_) width = std::max(width, static_cast<int>(name.size()));
  std::snprintf(buf, sizeof buf, "%-*s %10lld/%lld (%5.1f%%)  loss %-10.4g %9.0f samples/s  %s",
                width, arm.c_str(), static_cast<long long>(l.samples),
                static_cast<long long>(budget_), pct, l.loss, l.samples_per_s,
                l.state == "running" ? ("ETA " + formatDuration(eta)).c_str() : l.state.c_str());
  return buf;
}

void ProgressSink::draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  const std::chrono::steady_clock::duration interval =
      interactive_
          ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(kTerminalRedraw)
          : std::chrono::duration_cast<std::chrono::steady_clock::duration>(kPlainInterval);
  if (!force && now - last_draw_ < interval) return;
  last_draw_ = now;
  if (interactive_ && drawn_lines_ > 0) std::fprintf(out_, "\033[%dA", drawn_lines_);
  for (const auto& name : order_) {
    std::fprintf(out_, "%s%s\n", lineFor(name, arms_.at(name)).c_str(),
                 interactive_ ? "\033[K" : "");
  }
  std::fprintf(out_, "ETA %s (all arms)%s\n", formatDuration(etaSeconds()).c_str(),
               interactive_ ? "\033[K" : "");
  drawn_lines_ = static_cast<int>(order_.size()) + 1;
  std::fflush(out_);
}

}  // namespace accumlab::cli
