// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_command.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <thread>

#include "accumlab/child_process.h"
#include "accumlab/executable_path.h"
#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab/output_file.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_array.h"
#include "accumlab/sweep_check.h"
#include "accumlab/sweep_event.h"
#include "accumlab/sweep_grid.h"
#include "accumlab/sweep_job.h"
#include "accumlab/sweep_runner.h"
#include "accumlab/sweep_store.h"
#include "completion_hints.h"
#include "engine_handoff.h"
#include "stop_on_signal.h"
#include "sweep_table.h"

namespace accumlab::cli {

namespace {

/// The path of this executable, to start the points with.
std::string selfPath() {
  std::string self = executablePath();
  if (self.empty()) {
    throw InputError(
        "cannot read this program's path from /proc/self/exe, which starts the "
        "sweep's workers; is /proc mounted?");
  }
  return self;
}

/// The sweep's events for people: a line as it starts and as each point ends, on stderr.
void printForPeople(const SweepEvent& e) {
  if (e.kind == SweepEvent::Kind::kSweepStarted) {
    std::fprintf(stderr, "sweep %lld: %zu points to train, %d at once, target %s; stored in %s\n",
                 static_cast<long long>(e.sweep), e.points, e.jobs,
                 describeTarget(e.target).c_str(), e.db.c_str());
  } else if (e.kind == SweepEvent::Kind::kPointFinished) {
    const SweepPoint& p = e.point;
    std::string what = toString(p.status);
    if (p.status == SweepStatus::kReached) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "reached at step %.1f (%.0f samples)", p.steps_to_target,
                    p.samples_to_target);
      what = buf;
    } else if (!p.message.empty()) {
      what += ": " + p.message;
    }
    std::fprintf(stderr, "point %zu/%zu  %s: %s · %.1f s\n", e.done, e.total,
                 describeSweepPoint(p).c_str(), what.c_str(), e.seconds);
  }
}

}  // namespace

SweepCommand::SweepCommand(CLI::App& parent) {
  app_ = parent.add_subcommand("sweep", kSweepAbout);
  app_->option_defaults()->always_capture_default();
  options_ = std::make_unique<ConfigOptions>(
      *app_, std::set<std::string>{"--micro-batch", "--accum", "--lr", "--arms"});
  app_->add_option("--micro-batch,-m", micro_batches_, "Micro-batch sizes m, e.g. 8,16,32")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  auto* accum = app_->add_option("--accum,-k", accums_, "Accumulation counts K, e.g. 1,2,4,8")
                    ->delimiter(',')
                    ->check(CLI::PositiveNumber);
  auto* effective =
      app_->add_option("--effective-batch,-B", effective_batches_,
                       "Effective batches B = m·K, e.g. 8,16,…,1024 (K = B/m for each m)")
          ->delimiter(',')
          ->check(CLI::PositiveNumber);
  effective->excludes(accum);
  app_->add_option("--lr", lrs_, "Learning rates; each B is fitted at its best one")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  std::vector<std::string> recipes;
  for (const std::string& arm : enumNames<ArmKind>()) {
    if (arm == "accum" || isPitfall(parseArmKind(arm))) recipes.push_back(arm);
  }
  completeWith(
      app_->add_option("--arm", arm_,
                       "The recipe every point trains: accum, or a pitfall arm such as "
                       "pitfall:sum (docs/pitfalls.md), to see how a mistake moves the steps to "
                       "the target"),
      {recipes});
  auto* loss =
      app_->add_option("--target-loss", target_loss_,
                       "Target: the smoothed training loss (debiased EMA) at or below this");
  auto* accuracy =
      app_->add_option("--target-val-accuracy", target_accuracy_,
                       "Target: the validation accuracy (a fraction) at or above this");
  loss->excludes(accuracy);
  app_->add_option("--smoothing", smoothing_, "s of the debiased EMA of the training loss")
      ->check(CLI::Range(0.0, 0.999));
  const unsigned cores = std::thread::hardware_concurrency();
  jobs_ = cores > 0 ? static_cast<int>(cores) : 1;
  app_->add_option("--jobs,-j", jobs_, "Points trained at once, one thread each")
      ->check(CLI::PositiveNumber);
  app_->add_option("--resume", resume_, "Run the points of stored sweep ID that have not ended")
      ->check(CLI::PositiveNumber);
  app_->add_flag("--json", json_, "Print the points and fits as JSON on stdout");
  app_->add_flag("--quiet,-q", quiet_, "No progress lines");
  addProgressOption(*app_, progress_);
  app_->add_option("--db", db_, "Run database (default: " + RunStore::defaultPath() + ")");
  auto* slurm = app_->add_flag(
      "--slurm", slurm_,
      "Write the sweep as a Slurm array job into --results instead of training it here: one "
      "task per point (docs/clusters.md)");
  app_->add_option("--results", results_, "With --slurm: the results folder to write (new)")
      ->needs(slurm);
  app_->add_option("--sbatch", sbatch_options_,
                   "With --slurm: an #SBATCH option for the script, e.g. --sbatch=--partition=gpu "
                   "(repeat it for more)")
      ->needs(slurm);
  app_->add_flag("--submit", submit_, "With --slurm: submit the script with sbatch")->needs(slurm);
  collect_ = app_->add_subcommand(
      "collect",
      "Merge the points of a --slurm results folder into --db and store them as one sweep");
  collect_->add_option("folder", collect_folder_, "The results folder")->required();
  collect_->add_option("--db", db_, "Run database (default: " + RunStore::defaultPath() + ")");
  collect_->add_flag("--json", json_, "Print the points and fits as JSON on stdout");
}

std::vector<SweepPoint> SweepCommand::grid(const ExperimentConfig& base) const {
  SweepGrid grid;
  grid.micro_batches = micro_batches_;
  grid.accums = accums_;
  grid.effective_batches = effective_batches_;
  grid.lrs = lrs_;
  return buildSweepGrid(base, grid);
}

void SweepCommand::report(const SweepEvent& event) const {
  if (quiet_) return;
  if (progress_ == ProgressFormat::kJsonl) {
    std::fprintf(stderr, "%s\n", sweepEventToJson(event).c_str());
    std::fflush(stderr);
  } else {
    printForPeople(event);
  }
}

int SweepCommand::execute() {
  try {
    return train();
  } catch (const std::exception& e) {
    if (progress_ == ProgressFormat::kJsonl) {
      SweepEvent error;
      error.message = e.what();
      report(error);
    }
    throw;
  }
}

int SweepCommand::train() {
  if (collect_->parsed()) return collect();
  const std::string db = db_.empty() ? RunStore::defaultPath() : db_;
  if (slurm_ && (resume_ > 0 || results_.empty())) {
    throw InputError(resume_ > 0
                         ? "--slurm writes a new sweep; --resume trains a stored one here"
                         : "--slurm needs --results DIR, the new folder its tasks write to");
  }
  RunStore store(db);
  SweepRunnerOptions options;
  options.program = selfPath();
  options.store_path = db;
  options.jobs = jobs_;
  SweepPlan plan;
  if (resume_ > 0) {
    plan = resumeSweep(store, resume_);
  } else {
    const bool by_loss = app_->get_option("--target-loss")->count() > 0;
    const bool by_accuracy = app_->get_option("--target-val-accuracy")->count() > 0;
    if (!by_loss && !by_accuracy) {
      throw InputError("a sweep needs a target: --target-loss X or --target-val-accuracy A");
    }
    SweepTarget target;
    target.kind = by_loss ? SweepTarget::Kind::kLoss : SweepTarget::Kind::kValAccuracy;
    target.value = by_loss ? target_loss_ : target_accuracy_;
    target.smoothing = smoothing_;
    ExperimentConfig base = options_->resolve();
    base.arms = {parseArmKind(arm_)};
    if (base.arms.front() != ArmKind::kAccum && !isPitfall(base.arms.front())) {
      throw InputError("--arm " + arm_ +
                       ": a sweep trains accum or a pitfall arm (pitfall:sum, …) at each point");
    }
    if (base.threads == 0) base.threads = 1;  // the workers share the cores
    const std::vector<SweepPoint> points = grid(base);
    checkSweepPoints(base, points, db);
    dryRunSweepPoint(base, points.front());
    if (slurm_) return writeArray(base, target, points);
    plan = createSweep(store, base, target, jobs_, points);
  }
  const int64_t sweep_id = plan.sweep_id;

  SweepRunner runner(std::move(plan), options);
  app::StopOnSignal on_signal("accumlab-cli", "stopping every point at its next window boundary",
                              [&runner] { runner.requestStop(); });
  const bool text = !quiet_ && progress_ == ProgressFormat::kText;
  SweepEventObserver progress([this](const SweepEvent& event) { report(event); }, db, jobs_);
  // Throws, after sweep_finished, when a point's input was bad.
  const SweepOutcome outcome = runner.run(progress);
  printSweep(store, sweep_id);
  if (text) {
    std::fprintf(stderr, "Stored as sweep %lld in %s (`accumlab-cli show-sweep %lld`%s)\n",
                 static_cast<long long>(sweep_id), db.c_str(), static_cast<long long>(sweep_id),
                 outcome.stopped ? "; `accumlab-cli sweep --resume` trains the rest" : "");
  }
  if (const int signo = on_signal.signalReceived()) return 128 + signo;
  return outcome.failed ? 1 : 0;
}

void SweepCommand::printSweep(RunStore& store, int64_t sweep_id) const {
  const SweepDetail sweep = SweepStore(store).get(sweep_id);
  const SweepAnalysis analysis = analyzeSweep(sweep.points);
  if (json_) {
    std::cout << sweepJson(sweep, analysis).dump(2) << std::endl;
  } else {
    std::cout << formatSweep(sweep, analysis) << std::flush;
  }
}

int SweepCommand::writeArray(const ExperimentConfig& base, const SweepTarget& target,
                             const std::vector<SweepPoint>& points) {
  SweepArray array;
  array.id = newSweepArrayId();
  array.spec.config = base;
  array.spec.target = target;
  array.spec.jobs = static_cast<int>(points.size());
  array.points = points;
  writeSweepArray(results_, array);
  const std::string script = results_ + "/sweep.sbatch";
  writeFileWhole(script, slurmArrayScript(results_, points.size(), selfPath(), sbatch_options_));
  ::chmod(script.c_str(), 0755);
  std::cerr << "Wrote " << points.size() << " points into " << results_ << " and the array job "
            << script << "\n";
  const std::string db = db_.empty() ? RunStore::defaultPath() : db_;
  if (!submit_) {
    std::cerr << "Submit it with `sbatch " << script
              << "`; once its tasks end, `accumlab-cli sweep "
              << "collect " << results_ << " --db " << db << "` stores the sweep\n";
    return 0;
  }
  ChildSpec spec;
  spec.argv = {"/usr/bin/env", "sbatch", "--parsable", script};
  spec.stdout_file = results_ + "/sbatch.out";
  spec.stderr_lines = 5;
  spec.timeout_s = 60;
  const ChildResult result = runChild(spec);
  std::string job = readWholeFile(spec.stdout_file, {"sbatch's answer", 4096});
  job.erase(std::remove(job.begin(), job.end(), '\n'), job.end());
  if (!result.exitedWith(0)) {
    std::string why = result.stderr_tail.empty() ? result.describe() : result.stderr_tail.back();
    throw InputError("sbatch could not submit " + script + ": " + why);
  }
  std::cout << job << std::endl;
  std::cerr << "Submitted array job " << job << " (" << points.size() << " tasks); once they end, "
            << "`accumlab-cli sweep collect " << results_ << " --db " << db
            << "` stores the sweep\n";
  return 0;
}

int SweepCommand::collect() {
  const std::string db = db_.empty() ? RunStore::defaultPath() : db_;
  RunStore store(db);
  const CollectedSweep got = collectSweepArray(store, collect_folder_);
  printSweep(store, got.sweep_id);
  if (!quiet_) {
    std::cerr << "sweep " << got.sweep_id << " in " << db
              << ", points collected now: " << got.added.size() << ", before: " << got.kept.size()
              << ", missing: " << got.missing.size() << ", failed: " << got.failed.size() << "\n";
    for (const std::string& line : got.missing) std::cerr << "  missing " << line << "\n";
    for (const std::string& line : got.failed) std::cerr << "  failed " << line << "\n";
  }
  return got.missing.empty() && got.failed.empty() ? 0 : 1;
}

}  // namespace accumlab::cli
