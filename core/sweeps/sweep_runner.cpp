// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/sweep_runner.h"

#include <signal.h>

#include <cstdio>
#include <deque>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "accumlab/child_process.h"
#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_store.h"
#include "accumlab/temp_folder.h"

namespace accumlab {

namespace {

// Seconds between two looks at the stop flag while points train.
constexpr double kStopCheckS = 0.05;
// A point's process exits with this on bad input (the CLI's usage and input errors).
constexpr int kBadInputExit = 2;

static_assert(std::atomic<bool>::is_always_lock_free,
              "requestStop() is called from signal handlers");

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A point's one-sentence error: the message of its last `error` progress object (points run
/// with `--progress jsonl`), else its last non-empty line (a usage error).
std::string pointError(const std::string& err) {
  std::istringstream in(err);
  std::string line, last, message;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("event", "") == "error" && j.contains("message") &&
        j["message"].is_string()) {
      message = j["message"].get<std::string>();
    }
  }
  if (!message.empty()) return message;
  const std::string prefix = "accumlab-cli: ";
  if (last.rfind(prefix, 0) == 0) last = last.substr(prefix.size());
  return last;
}

/// The stored run id of a point's one arm (accum, or the pitfall arm of `sweep --arm`) from
/// its `run --json` summary (0: none).
int64_t storedRunId(const std::string& out_text) {
  const nlohmann::json out = nlohmann::json::parse(out_text, nullptr, false);
  if (!out.is_object() || !out.contains("store") || !out["store"].is_object()) return 0;
  const nlohmann::json& ids = out["store"].value("run_ids", nlohmann::json::object());
  if (!ids.is_object() || ids.size() != 1 || !ids.begin()->is_number_integer()) return 0;
  return ids.begin()->get<int64_t>();
}

std::string exactText(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// One point's process: `PROGRAM run` of one point, its output in files.
struct Worker {
  SweepPoint point;
  std::string out, err;
  std::unique_ptr<ChildProcess> child;
};

Worker startWorker(const SweepPlan& plan, const SweepRunnerOptions& options,
                   const SweepPoint& point, const std::string& folder) {
  Worker w;
  w.point = point;
  ExperimentConfig c = sweepPointConfig(plan.base, point);
  c.name = (plan.base.name.empty() ? "sweep " + std::to_string(plan.sweep_id) : plan.base.name) +
           " · " + describeSweepPoint(point);
  const std::string file = folder + "/point-" + std::to_string(point.index);
  std::ofstream(file + ".json") << configToJson(c);
  w.out = file + ".out";
  w.err = file + ".err";
  ChildSpec spec;
  spec.argv = {options.program,    "run",    "--config", file + ".json", "--db",
               options.store_path, "--json", "-q",       "--progress",   "jsonl"};
  if (plan.target.kind == SweepTarget::Kind::kLoss) {
    spec.argv.insert(spec.argv.end(), {"--stop-at-loss", exactText(plan.target.value),
                                       "--smoothing", exactText(plan.target.smoothing)});
  } else {
    spec.argv.insert(spec.argv.end(), {"--stop-at-val-accuracy", exactText(plan.target.value)});
  }
  spec.stdout_file = w.out;
  spec.stderr_file = w.err;
  // Its own process group: a Ctrl-C in the terminal reaches the sweep, which then asks each
  // point once (a second signal would make a point quit without storing its end).
  spec.own_process_group = true;
  // As a `run` started by hand: a point outlives a sweep that was killed, and stores its end.
  spec.dies_with_parent = false;
  try {
    w.child = std::make_unique<ChildProcess>(spec);
  } catch (const std::system_error& e) {
    throw InputError("cannot start a sweep worker: " + e.code().message());
  }
  w.point.status = SweepStatus::kRunning;
  return w;
}

/// Fills in the point's outcome from its stored run, or from why its process failed; false
/// when it stored no run.
bool measureWorker(Worker& w, const ChildResult& result, bool stopping, RunStore& store,
                   const SweepTarget& target) {
  SweepPoint& p = w.point;
  const int64_t run_id = storedRunId(readFile(w.out));
  if (run_id > 0) {
    p.run_id = run_id;
    const RunDetail detail = store.run(run_id);
    const RunSeries series = store.series(run_id);
    measurePoint(p, detail.summary, series.steps, series.evals, series.probes, target);
    if (stopping && p.status != SweepStatus::kReached) p.status = SweepStatus::kInterrupted;
    return true;
  }
  p.status = stopping ? SweepStatus::kInterrupted : SweepStatus::kFailed;
  p.message = pointError(readFile(w.err));
  if (p.message.empty()) p.message = "the worker " + result.describe();
  return false;
}

}  // namespace

SweepPlan createSweep(RunStore& store, const ExperimentConfig& base, const SweepTarget& target,
                      int jobs, const std::vector<SweepPoint>& points) {
  SweepSpec spec;
  spec.config = base;
  spec.target = target;
  spec.jobs = jobs;
  SweepPlan plan;
  plan.sweep_id = SweepStore(store).create(base.name, spec, points);
  plan.base = base;
  plan.target = target;
  plan.points = points;
  return plan;
}

SweepPlan resumeSweep(RunStore& store, int64_t sweep_id) {
  const std::string name = "sweep " + std::to_string(sweep_id);
  const SweepDetail stored = SweepStore(store).get(sweep_id);
  const SweepSpec spec = sweepSpecFromJson(stored.row.spec_json, name);
  if (!spec.config) throw InputError(name + " in " + store.path() + " has no config to resume");
  SweepPlan plan;
  plan.sweep_id = sweep_id;
  plan.base = *spec.config;
  plan.target = spec.target;
  for (const SweepPoint& p : stored.points) {
    if (!p.done()) plan.points.push_back(p);
  }
  return plan;
}

ExperimentConfig sweepPointConfig(const ExperimentConfig& base, const SweepPoint& point) {
  ExperimentConfig c = base;
  c.micro_batch = point.micro_batch;
  c.accum = point.accum;
  c.optimizer.lr = point.lr;
  return c;
}

std::string describeSweepPoint(const SweepPoint& p) {
  char lr[32];
  std::snprintf(lr, sizeof lr, "%g", p.lr);
  return "B=" + std::to_string(p.effectiveBatch()) + " (" + std::to_string(p.micro_batch) + "×" +
         std::to_string(p.accum) + ") lr=" + lr;
}

SweepRunner::SweepRunner(SweepPlan plan, SweepRunnerOptions options)
    : plan_(std::move(plan)), options_(std::move(options)) {}

SweepOutcome SweepRunner::run(SweepObserver& observer) {
  RunStore store(options_.store_path);
  std::unique_ptr<TempFolder> folder;
  try {
    folder = std::make_unique<TempFolder>("accumlab-sweep");
  } catch (const std::system_error&) {
    throw InputError("cannot create a folder for the sweep's workers");
  }
  observer.sweepStarted(plan_);
  SweepOutcome outcome;
  outcome.total = plan_.points.size();
  std::deque<SweepPoint> queue(plan_.points.begin(), plan_.points.end());
  std::vector<Worker> running;
  // Once: the points are asked to stop at their next window boundary.
  const auto stopAll = [&] {
    if (outcome.stopped) return;
    outcome.stopped = true;
    for (Worker& w : running) w.child->sendSignal(SIGINT);
  };
  while (!queue.empty() || !running.empty()) {
    if (stop_requested_.load()) stopAll();
    while (!outcome.stopped && !queue.empty() && static_cast<int>(running.size()) < options_.jobs) {
      running.push_back(startWorker(plan_, options_, queue.front(), folder->path()));
      queue.pop_front();
      SweepStore(store).updatePoint(plan_.sweep_id, running.back().point);
      observer.pointStarted(running.back().point);
    }
    if (running.empty()) break;  // stopped with points left in the queue
    std::vector<ChildProcess*> children;
    for (Worker& w : running) children.push_back(w.child.get());
    const std::optional<ChildProcess::End> end = ChildProcess::waitAny(children, kStopCheckS);
    if (!end) continue;
    if (stop_requested_.load()) stopAll();
    Worker w = std::move(running[end->index]);
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(end->index));
    const bool stored = measureWorker(w, end->result, outcome.stopped, store, plan_.target);
    if (!stored && end->result.exitedWith(kBadInputExit) && outcome.input_error.empty()) {
      // Bad input (an unknown dataset, a model that does not fit the data): every point
      // would fail the same way.
      outcome.input_error = w.point.message;
      stopAll();
    }
    if (w.point.status == SweepStatus::kFailed) outcome.failed = true;
    SweepStore(store).updatePoint(plan_.sweep_id, w.point);
    ++outcome.done;
    observer.pointFinished(w.point, outcome.done, outcome.total, end->result.wall_s);
  }
  observer.sweepFinished(outcome);
  if (!outcome.input_error.empty()) throw InputError(outcome.input_error);
  return outcome;
}

}  // namespace accumlab
