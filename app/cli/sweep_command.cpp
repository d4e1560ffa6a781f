// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_command.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <thread>

#include "accumlab/executable_path.h"
#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_runner.h"
#include "accumlab/sweep_store.h"
#include "accumlab/trainer.h"
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

/// Trains one sample of the first point here, without storing it: bad data or a model that
/// does not fit the data throws InputError before the sweep is stored and workers start.
void checkExperiment(const ExperimentConfig& base, const SweepPoint& first) {
  ExperimentConfig c = sweepPointConfig(base, first);
  c.samples = 1;
  c.epochs = 0;
  c.probe_repeats = 0;
  c.grad_check_every = 0;
  NullSink silent;
  Trainer(c).run(silent);
}

/// The sweep's progress on stderr: `--progress jsonl` objects through `report` (the app's
/// Sweeps tab reads them, ui/sweep/sweep_progress.cpp), and with `text` lines for people.
class SweepProgress : public SweepObserver {
 public:
  SweepProgress(std::function<void(const nlohmann::json&)> report, bool text, int jobs,
                std::string db)
      : report_(std::move(report)), text_(text), jobs_(jobs), db_(std::move(db)) {}

  void sweepStarted(const SweepPlan& plan) override {
    sweep_id_ = plan.sweep_id;
    report_({{"event", "sweep_started"},
             {"sweep", sweep_id_},
             {"points", plan.points.size()},
             {"jobs", jobs_},
             {"target", nlohmann::json::parse(sweepTargetToJson(plan.target))},
             {"db", db_}});
    if (text_) {
      std::fprintf(stderr, "sweep %lld: %zu points to train, %d at once, target %s; stored in %s\n",
                   static_cast<long long>(sweep_id_), plan.points.size(), jobs_,
                   describeTarget(plan.target).c_str(), db_.c_str());
    }
  }

  void pointStarted(const SweepPoint& p) override {
    report_({{"event", "point_started"},
             {"sweep", sweep_id_},
             {"point", p.index},
             {"micro_batch", p.micro_batch},
             {"accum", p.accum},
             {"effective_batch", p.effectiveBatch()},
             {"lr", p.lr}});
  }

  void pointFinished(const SweepPoint& p, size_t done, size_t total, double seconds) override {
    nlohmann::json object = nlohmann::json::parse(sweepPointToJson(p));
    object.update({{"event", "point_finished"},
                   {"sweep", sweep_id_},
                   {"point", p.index},
                   {"done", done},
                   {"total", total},
                   {"seconds", seconds}});
    report_(object);
    if (!text_) return;
    std::string what = toString(p.status);
    if (p.status == SweepStatus::kReached) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "reached at step %.1f (%.0f samples)", p.steps_to_target,
                    p.samples_to_target);
      what = buf;
    } else if (!p.message.empty()) {
      what += ": " + p.message;
    }
    std::fprintf(stderr, "point %zu/%zu  %s: %s · %.1f s\n", done, total,
                 describeSweepPoint(p).c_str(), what.c_str(), seconds);
  }

  void sweepFinished(const SweepOutcome& outcome) override {
    report_({{"event", "sweep_finished"},
             {"sweep", sweep_id_},
             {"done", outcome.done},
             {"total", outcome.total},
             {"stopped", outcome.stopped},
             {"failed", outcome.failed},
             {"db", db_}});
  }

 private:
  std::function<void(const nlohmann::json&)> report_;
  bool text_;
  int jobs_;
  std::string db_;
  int64_t sweep_id_ = 0;
};

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
}

std::vector<SweepPoint> SweepCommand::grid(const ExperimentConfig& base) const {
  std::vector<std::pair<int64_t, int64_t>> sizes;
  const std::vector<int64_t> ms =
      micro_batches_.empty() ? std::vector<int64_t>{base.micro_batch} : micro_batches_;
  if (!effective_batches_.empty()) {
    // Each B with each m (several m at one B show the memory/speed trade-off).
    for (int64_t b : effective_batches_) {
      for (int64_t given : ms) {
        const int64_t m = std::min(given, b);  // a batch below m is one micro-batch
        if (b % m != 0) {
          throw InputError("effective batch " + std::to_string(b) +
                           " is not a multiple of m = " + std::to_string(m) + "; choose B = m·K");
        }
        if (std::find(sizes.begin(), sizes.end(), std::make_pair(m, b / m)) == sizes.end()) {
          sizes.emplace_back(m, b / m);
        }
      }
    }
  } else {
    const std::vector<int64_t> ks = accums_.empty() ? std::vector<int64_t>{base.accum} : accums_;
    for (int64_t m : ms) {
      for (int64_t k : ks) sizes.emplace_back(m, k);
    }
  }
  const std::vector<double> lrs = lrs_.empty() ? std::vector<double>{base.optimizer.lr} : lrs_;
  std::vector<SweepPoint> points;
  for (const auto& [m, k] : sizes) {
    for (double lr : lrs) {
      SweepPoint p;
      p.index = static_cast<int64_t>(points.size());
      p.micro_batch = m;
      p.accum = k;
      p.lr = lr;
      points.push_back(p);
    }
  }
  if (points.size() < 2) {
    throw InputError(
        "a sweep needs at least 2 points; give several --micro-batch, --accum or "
        "--effective-batch values");
  }
  return points;
}

void SweepCommand::report(const nlohmann::json& object) const {
  if (progress_ == ProgressFormat::kJsonl && !quiet_) writeJsonLine(stderr, object);
}

int SweepCommand::execute() {
  try {
    return train();
  } catch (const std::exception& e) {
    report({{"event", "error"}, {"message", e.what()}});
    throw;
  }
}

int SweepCommand::train() {
  const std::string db = db_.empty() ? RunStore::defaultPath() : db_;
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
    for (const SweepPoint& p : points) validateConfig(sweepPointConfig(base, p));
    RunStore::refuseReadingStore(base, db);
    checkExperiment(base, points.front());
    plan = createSweep(store, base, target, jobs_, points);
  }
  const int64_t sweep_id = plan.sweep_id;

  SweepRunner runner(std::move(plan), options);
  app::StopOnSignal on_signal("accumlab-cli", "stopping every point at its next window boundary",
                              [&runner] { runner.requestStop(); });
  const bool text = !quiet_ && progress_ == ProgressFormat::kText;
  SweepProgress progress([this](const nlohmann::json& object) { report(object); }, text, jobs_, db);
  // Throws, after sweep_finished, when a point's input was bad.
  const SweepOutcome outcome = runner.run(progress);
  const SweepDetail sweep = SweepStore(store).get(sweep_id);
  const SweepAnalysis analysis = analyzeSweep(sweep.points);
  if (json_) {
    std::cout << sweepJson(sweep, analysis).dump(2) << std::endl;
  } else {
    std::cout << formatSweep(sweep, analysis) << std::flush;
  }
  if (text) {
    std::fprintf(stderr, "Stored as sweep %lld in %s (`accumlab-cli show-sweep %lld`%s)\n",
                 static_cast<long long>(sweep_id), db.c_str(), static_cast<long long>(sweep_id),
                 outcome.stopped ? "; `accumlab-cli sweep --resume` trains the rest" : "");
  }
  if (const int signo = on_signal.signalReceived()) return 128 + signo;
  return outcome.failed ? 1 : 0;
}

}  // namespace accumlab::cli
