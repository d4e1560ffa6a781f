// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/sweep_runner.h"

#include <signal.h>

#include <cstdio>
#include <deque>
#include <fstream>
#include <memory>
#include <system_error>

#include "accumlab/child_process.h"
#include "accumlab/input_error.h"
#include "accumlab/output_file.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_job.h"
#include "accumlab/sweep_store.h"
#include "accumlab/temp_folder.h"

namespace accumlab {

namespace {

// Seconds between two looks at the stop flag while points train.
constexpr double kStopCheckS = 0.05;
// A worker exits with this on bad input, also for a command line it cannot parse.
constexpr int kBadInputExit = 2;

static_assert(std::atomic<bool>::is_always_lock_free,
              "requestStop() is called from signal handlers");

/// The last non-empty line of a point's stderr, without the program's prefix: why a point
/// that wrote no outcome ended (a crash, a usage error).
std::string lastLine(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  const std::string prefix = "accumlab-cli: ";
  if (last.rfind(prefix, 0) == 0) last = last.substr(prefix.size());
  return last;
}

/// One point's process: `PROGRAM sweep-point JOB --outcome FILE`, its stderr in a file.
struct Worker {
  SweepPoint point;
  std::string outcome, err;
  std::unique_ptr<ChildProcess> child;
};

Worker startWorker(const SweepPlan& plan, const SweepRunnerOptions& options,
                   const SweepPoint& point, const std::string& folder) {
  Worker w;
  w.point = point;
  const std::string file = folder + "/point-" + std::to_string(point.index);
  writeFileWhole(file + ".job.json", sweepJobToJson(makeSweepJob(plan, point, options.store_path)));
  w.outcome = file + ".outcome.json";
  w.err = file + ".err";
  ChildSpec spec;
  spec.argv = {options.program, "sweep-point", file + ".job.json", "--outcome", w.outcome};
  spec.discard_stdout = true;
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

/// Fills in the point's outcome from its stored run, or from why it stored none; returns
/// what the worker wrote of its outcome (nullopt: it died before it could).
std::optional<SweepJobOutcome> measureWorker(Worker& w, const ChildResult& result, bool stopping,
                                             RunStore& store, const SweepTarget& target) {
  SweepPoint& p = w.point;
  const std::optional<SweepJobOutcome> outcome = readSweepJobOutcome(w.outcome);
  if (outcome && outcome->run_id > 0) {
    p.run_id = outcome->run_id;
    const RunDetail detail = store.run(p.run_id);
    const RunSeries series = store.series(p.run_id);
    measurePoint(p, detail.summary, series.steps, series.evals, series.probes, target);
    if (stopping && p.status != SweepStatus::kReached) p.status = SweepStatus::kInterrupted;
    return outcome;
  }
  p.status = stopping ? SweepStatus::kInterrupted : SweepStatus::kFailed;
  p.message = outcome ? outcome->error : lastLine(w.err);
  if (p.message.empty()) p.message = "the worker " + result.describe();
  return outcome;
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
    const std::optional<SweepJobOutcome> told =
        measureWorker(w, end->result, outcome.stopped, store, plan_.target);
    // Bad input (an unknown dataset, a model that does not fit the data), or a command line
    // the worker refused (exit 2 before it could write an outcome).
    const bool bad_input = told ? told->bad_input : end->result.exitedWith(kBadInputExit);
    if (bad_input && outcome.input_error.empty()) {
      // Every point would fail the same way.
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
