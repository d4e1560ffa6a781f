// SPDX-License-Identifier: GPL-3.0-or-later
// A sweep's events and their one JSON line, written by `accumlab-cli sweep --progress jsonl`
// and read back by the same code wherever a program follows a sweep.
#include "accumlab/sweep_event.h"

#include <nlohmann/json.hpp>

#include <exception>
#include <utility>

namespace accumlab {

namespace {

using json = nlohmann::json;

const char* eventName(SweepEvent::Kind kind) {
  switch (kind) {
    case SweepEvent::Kind::kSweepStarted:
      return "sweep_started";
    case SweepEvent::Kind::kPointStarted:
      return "point_started";
    case SweepEvent::Kind::kPointFinished:
      return "point_finished";
    case SweepEvent::Kind::kSweepFinished:
      return "sweep_finished";
    case SweepEvent::Kind::kError:
      return "error";
  }
  return "error";
}

std::optional<SweepEvent::Kind> eventKind(const std::string& name) {
  for (SweepEvent::Kind k : {SweepEvent::Kind::kSweepStarted, SweepEvent::Kind::kPointStarted,
                             SweepEvent::Kind::kPointFinished, SweepEvent::Kind::kSweepFinished,
                             SweepEvent::Kind::kError}) {
    if (name == eventName(k)) return k;
  }
  return std::nullopt;
}

int64_t integerAt(const json& j, const char* key, int64_t fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

double numberAt(const json& j, const char* key, double fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string textAt(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flagAt(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

std::string sweepEventToJson(const SweepEvent& e) {
  json j;
  switch (e.kind) {
    case SweepEvent::Kind::kSweepStarted:
      j = {{"sweep", e.sweep},
           {"points", e.points},
           {"jobs", e.jobs},
           {"target", json::parse(sweepTargetToJson(e.target))},
           {"db", e.db}};
      break;
    case SweepEvent::Kind::kPointStarted:
      j = {{"sweep", e.sweep},
           {"point", e.point.index},
           {"micro_batch", e.point.micro_batch},
           {"accum", e.point.accum},
           {"effective_batch", e.point.effectiveBatch()},
           {"lr", e.point.lr}};
      break;
    case SweepEvent::Kind::kPointFinished:
      j = json::parse(sweepPointToJson(e.point));
      j.update({{"sweep", e.sweep},
                {"point", e.point.index},
                {"done", e.done},
                {"total", e.total},
                {"seconds", e.seconds}});
      break;
    case SweepEvent::Kind::kSweepFinished:
      j = {{"sweep", e.sweep},     {"done", e.done},     {"total", e.total},
           {"stopped", e.stopped}, {"failed", e.failed}, {"db", e.db}};
      break;
    case SweepEvent::Kind::kError:
      j = {{"message", e.message}};
      break;
  }
  json line = {{"event", eventName(e.kind)}};
  line.update(j);
  return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<SweepEvent> parseSweepEvent(const std::string& line) {
  const json j = json::parse(line, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const std::optional<SweepEvent::Kind> kind = eventKind(textAt(j, "event"));
  if (!kind) return std::nullopt;
  SweepEvent e;
  e.kind = *kind;
  e.sweep = integerAt(j, "sweep", 0);
  e.points = static_cast<size_t>(integerAt(j, "points", 0));
  e.jobs = static_cast<int>(integerAt(j, "jobs", 0));
  if (j.contains("target") && j["target"].is_object()) {
    e.target = sweepTargetFromSpec(json{{"target", j["target"]}}.dump());
  }
  e.db = textAt(j, "db");
  e.done = static_cast<size_t>(integerAt(j, "done", 0));
  e.total = static_cast<size_t>(integerAt(j, "total", 0));
  e.seconds = numberAt(j, "seconds", 0);
  e.stopped = flagAt(j, "stopped");
  e.failed = flagAt(j, "failed");
  e.message = textAt(j, "message");
  e.point.index = integerAt(j, "point", -1);
  e.point.micro_batch = integerAt(j, "micro_batch", 0);
  e.point.accum = integerAt(j, "accum", 0);
  e.point.lr = numberAt(j, "lr", kNaN);
  if (e.kind == SweepEvent::Kind::kPointFinished) {
    e.point.run_id = integerAt(j, "run_id", 0);
    try {
      e.point.status = parseSweepStatus(textAt(j, "status"));
    } catch (const std::exception&) {
      return std::nullopt;  // a status this build does not know
    }
    sweepPointFromJson(line, e.point);
  } else if (e.kind == SweepEvent::Kind::kPointStarted) {
    e.point.status = SweepStatus::kRunning;
  }
  return e;
}

SweepEventObserver::SweepEventObserver(std::function<void(const SweepEvent&)> tell, std::string db,
                                       int jobs)
    : tell_(std::move(tell)), db_(std::move(db)), jobs_(jobs) {}

SweepEvent SweepEventObserver::event(SweepEvent::Kind kind) const {
  SweepEvent e;
  e.kind = kind;
  e.sweep = sweep_id_;
  return e;
}

void SweepEventObserver::sweepStarted(const SweepPlan& plan) {
  sweep_id_ = plan.sweep_id;
  SweepEvent e = event(SweepEvent::Kind::kSweepStarted);
  e.points = plan.points.size();
  e.jobs = jobs_;
  e.target = plan.target;
  e.db = db_;
  tell_(e);
}

void SweepEventObserver::pointStarted(const SweepPoint& point) {
  SweepEvent e = event(SweepEvent::Kind::kPointStarted);
  e.point = point;
  tell_(e);
}

void SweepEventObserver::pointFinished(const SweepPoint& point, size_t done, size_t total,
                                       double seconds) {
  SweepEvent e = event(SweepEvent::Kind::kPointFinished);
  e.point = point;
  e.done = done;
  e.total = total;
  e.seconds = seconds;
  tell_(e);
}

void SweepEventObserver::sweepFinished(const SweepOutcome& outcome) {
  SweepEvent e = event(SweepEvent::Kind::kSweepFinished);
  e.done = outcome.done;
  e.total = outcome.total;
  e.stopped = outcome.stopped;
  e.failed = outcome.failed;
  e.db = db_;
  tell_(e);
}

}  // namespace accumlab
