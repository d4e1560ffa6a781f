#include "sweep_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "accumlab/executable_path.h"
#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "accumlab/trainer.h"
#include "engine_handoff.h"
#include "stop_on_signal.h"
#include "sweep_table.h"

extern char** environ;

namespace accumlab::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A worker's one-sentence error: the message of its last `error` progress object (workers
/// run with `--progress jsonl`), else its last non-empty line (a usage error).
std::string workerError(const std::string& err) {
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

std::string sizesText(const SweepPoint& p) {
  char lr[32];
  std::snprintf(lr, sizeof lr, "%g", p.lr);
  return "B=" + std::to_string(p.effectiveBatch()) + " (" + std::to_string(p.micro_batch) + "×" +
         std::to_string(p.accum) + ") lr=" + lr;
}

/// The path of this executable, to start workers with.
std::string selfPath() {
  std::string self = executablePath();
  if (self.empty()) {
    throw InputError("cannot read this program's path from /proc/self/exe, which starts the "
                     "sweep's workers; is /proc mounted?");
  }
  return self;
}

/// One worker process: `accumlab-cli run` of one point.
struct Worker {
  SweepPoint point;
  fs::path out, err;
  Clock::time_point started;
};

/// The running workers' pids, shared with the signal watcher thread.
class Workers {
 public:
  void add(pid_t pid) {
    std::lock_guard<std::mutex> lock(mutex_);
    pids_.insert(pid);
  }
  void remove(pid_t pid) {
    std::lock_guard<std::mutex> lock(mutex_);
    pids_.erase(pid);
  }
  /// Asks every worker to stop at its next window boundary (as Ctrl-C asks `run`).
  void stopAll() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (pid_t pid : pids_) ::kill(pid, SIGINT);
  }

 private:
  std::mutex mutex_;
  std::set<pid_t> pids_;
};

pid_t spawnWorker(const std::string& self, const std::vector<std::string>& args,
                  const fs::path& out, const fs::path& err) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(self.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  // Its own process group: a Ctrl-C in the terminal reaches the sweep, which then asks each
  // worker once (a second signal would make a worker quit without storing its end).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self.c_str(), &files, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw InputError(std::string("cannot start a sweep worker: ") + std::strerror(rc));
  return pid;
}

/// Trains one sample of the first point here, without storing it: bad data or a model that
/// does not fit the data throws InputError before the sweep is stored and workers start.
void checkExperiment(const ExperimentConfig& base, const SweepPoint& first) {
  ExperimentConfig c = base;
  c.micro_batch = first.micro_batch;
  c.accum = first.accum;
  c.optimizer.lr = first.lr;
  c.samples = 1;
  c.epochs = 0;
  c.probe_repeats = 0;
  c.grad_check_every = 0;
  struct Silent : MetricsSink {
    void onStep(const StepRecord&) override {}
  } silent;
  Trainer(c).run(silent);
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
  auto* effective = app_->add_option("--effective-batch,-B", effective_batches_,
                                     "Effective batches B = m·K, e.g. 8,16,…,1024 (K = B/m for each m)")
                        ->delimiter(',')
                        ->check(CLI::PositiveNumber);
  effective->excludes(accum);
  app_->add_option("--lr", lrs_, "Learning rates; each B is fitted at its best one")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  auto* loss = app_->add_option("--target-loss", target_loss_,
                                "Target: the smoothed training loss (debiased EMA) at or below this");
  auto* accuracy = app_->add_option("--target-val-accuracy", target_accuracy_,
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
  const std::vector<int64_t> ms = micro_batches_.empty() ? std::vector<int64_t>{base.micro_batch}
                                                         : micro_batches_;
  if (!effective_batches_.empty()) {
    // Each B with each m (several m at one B show the memory/speed trade-off).
    for (int64_t b : effective_batches_) {
      for (int64_t given : ms) {
        const int64_t m = std::min(given, b);  // a batch below m is one micro-batch
        if (b % m != 0) {
          throw InputError("effective batch " + std::to_string(b) + " is not a multiple of m = " +
                           std::to_string(m) + "; choose B = m·K");
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
    throw InputError("a sweep needs at least 2 points; give several --micro-batch, --accum or "
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
  int64_t sweep_id = resume_;
  ExperimentConfig base;
  SweepTarget target;
  std::vector<SweepPoint> todo;
  if (resume_ > 0) {
    const SweepDetail stored = store.sweep(resume_);
    const SweepSpec spec = sweepSpecFromJson(stored.row.spec_json, "sweep " + std::to_string(resume_));
    if (!spec.config) {
      throw InputError("sweep " + std::to_string(resume_) + " in " + db + " has no config to resume");
    }
    base = *spec.config;
    target = spec.target;
    for (const SweepPoint& p : stored.points) {
      if (!p.done()) todo.push_back(p);
    }
  } else {
    const bool by_loss = app_->get_option("--target-loss")->count() > 0;
    const bool by_accuracy = app_->get_option("--target-val-accuracy")->count() > 0;
    if (!by_loss && !by_accuracy) {
      throw InputError("a sweep needs a target: --target-loss X or --target-val-accuracy A");
    }
    target.kind = by_loss ? SweepTarget::Kind::kLoss : SweepTarget::Kind::kValAccuracy;
    target.value = by_loss ? target_loss_ : target_accuracy_;
    target.smoothing = smoothing_;
    base = options_->resolve();
    base.arms = {ArmKind::kAccum};
    if (base.threads == 0) base.threads = 1;  // the workers share the cores
    todo = grid(base);
    for (const SweepPoint& p : todo) {
      ExperimentConfig c = base;
      c.micro_batch = p.micro_batch;
      c.accum = p.accum;
      c.optimizer.lr = p.lr;
      validateConfig(c);
    }
    RunStore::refuseReadingStore(base, db);
    checkExperiment(base, todo.front());
    SweepSpec spec;
    spec.config = base;
    spec.target = target;
    spec.jobs = jobs_;
    sweep_id = store.createSweep(base.name, spec, todo);
  }

  const std::string self = selfPath();
  const char* tmp_root = std::getenv("TMPDIR");
  std::string dir_pattern = std::string(tmp_root && *tmp_root ? tmp_root : "/tmp") + "/accumlab-sweep-XXXXXX";
  std::vector<char> dir_buf(dir_pattern.begin(), dir_pattern.end());
  dir_buf.push_back('\0');
  if (!mkdtemp(dir_buf.data())) throw InputError("cannot create a folder for the sweep's workers");
  const fs::path dir(dir_buf.data());

  Workers workers;
  std::atomic<bool> stopping{false};
  app::StopOnSignal on_signal("accumlab-cli", "stopping every point at its next window boundary",
                              [&] {
                                stopping = true;
                                workers.stopAll();
                              });
  const bool text = !quiet_ && progress_ == ProgressFormat::kText;
  report({{"event", "sweep_started"},
          {"sweep", sweep_id},
          {"points", todo.size()},
          {"jobs", jobs_},
          {"target", nlohmann::json::parse(sweepTargetToJson(target))},
          {"db", db}});
  if (text) {
    std::fprintf(stderr, "sweep %lld: %zu points to train, %d at once, target %s; stored in %s\n",
                 static_cast<long long>(sweep_id), todo.size(), jobs_,
                 describeTarget(target).c_str(), db.c_str());
  }
  std::deque<SweepPoint> queue(todo.begin(), todo.end());
  std::map<pid_t, Worker> running;
  const size_t total = todo.size();
  size_t finished = 0;
  bool any_failed = false;
  std::string input_error;  ///< a worker's bad-input sentence: the sweep stops with it
  while (!queue.empty() || !running.empty()) {
    while (!stopping && !queue.empty() && static_cast<int>(running.size()) < jobs_) {
      Worker w;
      w.point = queue.front();
      queue.pop_front();
      ExperimentConfig c = base;
      c.micro_batch = w.point.micro_batch;
      c.accum = w.point.accum;
      c.optimizer.lr = w.point.lr;
      c.name = (base.name.empty() ? "sweep " + std::to_string(sweep_id) : base.name) + " · " +
               sizesText(w.point);
      const fs::path config_file = dir / ("point-" + std::to_string(w.point.index) + ".json");
      std::ofstream(config_file) << configToJson(c);
      w.out = dir / ("point-" + std::to_string(w.point.index) + ".out");
      w.err = dir / ("point-" + std::to_string(w.point.index) + ".err");
      std::vector<std::string> args = {"run",    "--config", config_file.string(), "--db", db,
                                       "--json", "-q",       "--progress",         "jsonl"};
      char value[64];
      std::snprintf(value, sizeof value, "%.17g", target.value);
      if (target.kind == SweepTarget::Kind::kLoss) {
        char s[32];
        std::snprintf(s, sizeof s, "%.17g", target.smoothing);
        args.insert(args.end(), {"--stop-at-loss", value, "--smoothing", s});
      } else {
        args.insert(args.end(), {"--stop-at-val-accuracy", value});
      }
      w.started = Clock::now();
      const pid_t pid = spawnWorker(self, args, w.out, w.err);
      workers.add(pid);
      w.point.status = SweepStatus::kRunning;
      store.updateSweepPoint(sweep_id, w.point);
      report({{"event", "point_started"},
              {"sweep", sweep_id},
              {"point", w.point.index},
              {"micro_batch", w.point.micro_batch},
              {"accum", w.point.accum},
              {"effective_batch", w.point.effectiveBatch()},
              {"lr", w.point.lr}});
      running.emplace(pid, std::move(w));
    }
    if (running.empty()) break;  // stopped with points left in the queue
    int wstatus = 0;
    const pid_t pid = ::waitpid(-1, &wstatus, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw InputError(std::string("lost the sweep's workers: ") + std::strerror(errno));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    workers.remove(pid);
    Worker w = std::move(it->second);
    running.erase(it);
    SweepPoint& p = w.point;
    const double seconds = std::chrono::duration<double>(Clock::now() - w.started).count();
    const nlohmann::json out = nlohmann::json::parse(readFile(w.out), nullptr, false);
    int64_t run_id = 0;
    if (out.is_object() && out.contains("store") && out["store"].contains("run_ids") &&
        out["store"]["run_ids"].contains("accum")) {
      run_id = out["store"]["run_ids"]["accum"].get<int64_t>();
    }
    if (run_id > 0) {
      p.run_id = run_id;
      const RunDetail detail = store.run(run_id);
      const RunSeries series = store.series(run_id);
      measurePoint(p, detail.summary, series.steps, series.evals, series.probes, target);
      if (stopping && p.status != SweepStatus::kReached) p.status = SweepStatus::kInterrupted;
    } else {
      p.status = stopping ? SweepStatus::kInterrupted : SweepStatus::kFailed;
      p.message = workerError(readFile(w.err));
      if (p.message.empty()) p.message = "the worker ended with status " + std::to_string(wstatus);
      if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 2 && input_error.empty()) {
        // Bad input (an unknown dataset, a model that does not fit the data): every point
        // would fail the same way.
        input_error = p.message;
        stopping = true;
        workers.stopAll();
      }
    }
    if (p.status == SweepStatus::kFailed) any_failed = true;
    store.updateSweepPoint(sweep_id, p);
    ++finished;
    nlohmann::json done = nlohmann::json::parse(sweepPointToJson(p));
    done.update({{"event", "point_finished"},
                 {"sweep", sweep_id},
                 {"point", p.index},
                 {"done", finished},
                 {"total", total},
                 {"seconds", seconds}});
    report(done);
    if (text) {
      std::string what = toString(p.status);
      if (p.status == SweepStatus::kReached) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "reached at step %.1f (%.0f samples)", p.steps_to_target,
                      p.samples_to_target);
        what = buf;
      } else if (!p.message.empty()) {
        what += ": " + p.message;
      }
      std::fprintf(stderr, "point %zu/%zu  %s: %s · %.1f s\n", finished, total,
                   sizesText(p).c_str(), what.c_str(), seconds);
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);

  report({{"event", "sweep_finished"},
          {"sweep", sweep_id},
          {"done", finished},
          {"total", total},
          {"stopped", stopping.load()},
          {"failed", any_failed},
          {"db", db}});
  if (!input_error.empty()) throw InputError(input_error);
  const SweepDetail sweep = store.sweep(sweep_id);
  const SweepAnalysis analysis = analyzeSweep(sweep.points);
  if (json_) {
    std::cout << sweepJson(sweep, analysis).dump(2) << std::endl;
  } else {
    std::cout << formatSweep(sweep, analysis) << std::flush;
  }
  if (text) {
    std::fprintf(stderr, "Stored as sweep %lld in %s (`accumlab-cli show-sweep %lld`%s)\n",
                 static_cast<long long>(sweep_id), db.c_str(), static_cast<long long>(sweep_id),
                 stopping ? "; `accumlab-cli sweep --resume` trains the rest" : "");
  }
  if (const int signo = on_signal.signalReceived()) return 128 + signo;
  return any_failed ? 1 : 0;
}

}  // namespace accumlab::cli
