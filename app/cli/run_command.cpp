// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "accumlab/checkpoint_path.h"
#include "accumlab/executable_path.h"
#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab/memory_model.h"
#include "accumlab/memory_model_probe.h"
#include "accumlab/run_session.h"
#include "accumlab/run_store.h"
#include "accumlab/trainer.h"
#include "cli_main.h"
#include "config_options.h"
#include "engine_handoff.h"
#include "launcher_place.h"
#include "progress_sink.h"
#include "stop_on_signal.h"
#include "stored_run_notice.h"
#include "summary_table.h"

namespace accumlab::cli {

namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

/// "HOST:PORT" into the options' host and port.
void parseMaster(const std::string& text, WorkerGroupOptions& options) {
  const size_t colon = text.rfind(':');
  const std::string port = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (colon == 0 || port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    throw InputError("--master needs HOST:PORT (e.g. 10.0.0.1:29500), got '" + text + "'");
  }
  options.host = text.substr(0, colon);
  options.port = std::stoi(port);
}

/// The environment variable that carries the token (kept out of `ps`, unlike --token).
constexpr char kTokenVariable[] = "ACCUMLAB_TOKEN";

}  // namespace

RunCommand::RunCommand(CLI::App& parent) {
  app_ = parent.add_subcommand("run", kRunAbout);
  app_->option_defaults()->always_capture_default();
  options_ = std::make_unique<ConfigOptions>(*app_);
  auto* effective = app_->add_option("--effective-batch", effective_batch_,
                                     "Choose m and K for this m·K: the largest m whose predicted "
                                     "peak (two short probes) fits --memory-budget")
                        ->check(kPositive);
  effective->needs(options_->option("--memory-budget"))
      ->excludes(options_->option("--micro-batch"))
      ->excludes(options_->option("--accum"));
  auto* stop_loss = app_->add_option("--stop-at-loss", stop_at_loss_,
                                     "Stop once every arm's smoothed training loss (debiased EMA, "
                                     "--smoothing) is at or below this");
  auto* stop_acc = app_->add_option(
      "--stop-at-val-accuracy", stop_at_accuracy_,
      "Stop once every arm's validation accuracy (a fraction, e.g. 0.8) is at or above this");
  stop_loss->excludes(stop_acc);
  app_->add_option("--smoothing", smoothing_, "s of the debiased EMA that --stop-at-loss watches")
      ->check(CLI::Range(0.0, 0.999));
  app_->add_flag("--json", json_, "Print the summary as JSON on stdout");
  app_->add_flag("--quiet,-q", quiet_, "No progress display");
  addProgressOption(*app_, progress_);
  auto* db =
      app_->add_option("--db", db_, "Run database (default: " + RunStore::defaultPath() + ")");
  auto* no_store = app_->add_flag("--no-store", no_store_, "Do not store the run")->excludes(db);
  app_->add_option("--checkpoint-every", checkpoint_every_,
                   "Save the whole training state every this many samples (beside the run "
                   "database), so that --resume can continue the run after a crash")
      ->check(kPositive)
      ->excludes(no_store);
  app_->add_option("--resume", resume_,
                   "Continue the stored run RUN_ID (interrupted) from its last checkpoint, with "
                   "its stored config; its rows after the checkpoint are trained again")
      ->check(kPositive)
      ->excludes(no_store)
      ->excludes(effective);
  auto* rank =
      app_->add_option("--rank", rank_,
                       "Join a data-parallel run on several machines as rank R (0 hosts it, "
                       "stores it and prints the summary); with --world-size and --master")
          ->check(CLI::NonNegativeNumber);
  auto* world =
      app_->add_option("--world-size", world_size_, "N: the ranks of the run --rank joins")
          ->check(CLI::Range(int64_t{2}, kMaxWorkers));
  auto* master = app_->add_option(
      "--master", master_,
      "HOST:PORT of rank 0, as every rank reaches it; every rank needs the same token "
      "(--token-file FILE or $ACCUMLAB_TOKEN). Under srun or torchrun the rank, world size and "
      "master come from the launcher's environment");
  auto* master_port =
      app_->add_option("--master-port", master_port_,
                       "Under srun: the port of rank 0 (default: one derived from $SLURM_JOB_ID "
                       "and the step, from 20000 to 31999)")
          ->check(CLI::Range(1, 65535));
  master_port->excludes(master);
  auto* token_file =
      app_->add_option("--token-file", token_file_,
                       "File whose first line is the run's shared token (16 characters or "
                       "more, the same on every rank; or set $ACCUMLAB_TOKEN)");
  auto* token =
      app_->add_option("--token", token_,
                       "The run's shared token on the command line, where `ps` shows it to "
                       "other users: prefer --token-file or $ACCUMLAB_TOKEN");
  // How `--workers N` starts its ranks: they meet in rank 0's private folder, over loopback.
  auto* rendezvous = app_->add_option("--rendezvous-dir", rendezvous_dir_)->group("");
  app_->add_option("--worker-timeout", worker_timeout_,
                   "Seconds a worker waits for the others, at the start and in each all-reduce: a "
                   "worker that dies or hangs stops the run within it")
      ->check(CLI::PositiveNumber);
  rank->needs(world)->excludes(options_->option("--workers"));
  world->needs(rank);
  rendezvous->needs(rank);  // its conflicts are checked in execute(): help lists no hidden name
  // --master, --token and --token-file also serve ranks a launcher placed: execute() checks
  // that a rank needs them.
  token->excludes(token_file);
}

void RunCommand::placeFromLauncher() {
  const bool explicit_rank = rank_ >= 0;
  const bool local = options_->option("--workers")->count() > 0 || resume_ > 0;
  if (!explicit_rank && !local) {
    const auto place =
        launcherPlace([](const char* name) { return std::getenv(name); }, master_port_);
    if (place) {
      rank_ = place->rank;
      world_size_ = place->world_size;
      launcher_store_ = place->launcher_store && master_.empty();
      launcher_restart_ = place->restart;
      if (master_.empty()) master_ = place->host + ":" + std::to_string(place->port);
    }
  }
  if (rank_ < 0 &&
      (!master_.empty() || !token_.empty() || !token_file_.empty() || master_port_ > 0)) {
    throw InputError(
        "--master, --master-port and the token are for one rank of a run on several machines: "
        "add --rank R and --world-size N, or start the ranks with srun or torchrun");
  }
}

std::string RunCommand::resolveToken() const {
  if (!token_.empty()) return token_;
  if (!token_file_.empty()) {
    std::ifstream in(token_file_);
    std::string line;
    if (!in || (!std::getline(in, line) && !in.eof())) {
      throw InputError("cannot read the token file " + token_file_ + " (" + std::strerror(errno) +
                       ")");
    }
    // A file written by `echo` or an editor ends its line with "\n" or "\r\n".
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty()) {
      throw InputError("the token file " + token_file_ +
                       " is empty; put the run's shared token in its first line");
    }
    struct stat st {};
    if (::stat(token_file_.c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
      std::cerr << "accumlab-cli: warning: other users can read the token file " << token_file_
                << "; make it private (chmod 600)" << std::endl;
    }
    return line;
  }
  const char* variable = std::getenv(kTokenVariable);
  return variable ? variable : "";
}

std::optional<SweepTarget> RunCommand::stopTarget() const {
  const bool by_loss = app_->get_option("--stop-at-loss")->count() > 0;
  if (!by_loss && app_->get_option("--stop-at-val-accuracy")->count() == 0) return std::nullopt;
  SweepTarget target;
  target.kind = by_loss ? SweepTarget::Kind::kLoss : SweepTarget::Kind::kValAccuracy;
  target.value = by_loss ? stop_at_loss_ : stop_at_accuracy_;
  target.smoothing = smoothing_;
  return target;
}

WorkerGroupOptions RunCommand::joinOptions() const {
  WorkerGroupOptions group;
  group.rank = rank_;
  if (!rendezvous_dir_.empty()) {
    if (!master_.empty() || !token_.empty() || !token_file_.empty()) {
      throw InputError(
          "--rendezvous-dir is for ranks on this machine: it takes no --master or token");
    }
    group.rendezvous_dir = rendezvous_dir_;
  } else if (!master_.empty()) {
    parseMaster(master_, group);
    group.token = resolveToken();
    group.launcher_store = launcher_store_;
    if (launcher_store_)
      group.store_prefix = "accumlab/attempt_" + std::to_string(launcher_restart_) + "/";
  } else {
    throw InputError(
        "--rank needs --master HOST:PORT, the address of rank 0 as every rank reaches it");
  }
  return group;
}

ExperimentConfig RunCommand::resolveConfig() const {
  ExperimentConfig c = options_->resolve();
  validateConfig(c);
  return c;
}

int RunCommand::execute() {
  try {
    return train();
  } catch (const std::exception& e) {
    if (progress_ == ProgressFormat::kJsonl) {
      writeJsonLine(stderr, {{"event", "error"}, {"message", e.what()}});
    }
    throw;
  }
}

int RunCommand::train() {
  const std::string db_path = db_.empty() ? RunStore::defaultPath() : db_;
  int64_t resume_experiment = 0;
  std::string resume_file;
  ExperimentConfig config;
  if (resume_ > 0) {
    // The stored config and the checkpoint beside the store; nothing else is read.
    StoreOptions existing;
    existing.create_if_missing = false;
    RunStore store(db_path, existing);  // marks runs of dead processes interrupted
    const RunDetail run = store.run(resume_);
    if (run.row.status == ArmStatus::kRunning) {
      throw InputError("run " + std::to_string(resume_) + " in " + db_path +
                       " is still being trained by another process; stop it first");
    }
    resume_experiment = run.row.experiment_id;
    resume_file = checkpointPath(db_path, resume_experiment);
    if (!exists(resume_file)) {
      throw InputError("run " + std::to_string(resume_) +
                       " cannot be resumed: it has no checkpoint (" + resume_file +
                       "); only a run trained with --checkpoint-every that did not end can");
    }
    config = run.config;
  } else {
    config = resolveConfig();
  }
  placeFromLauncher();
  const bool joins = rank_ >= 0;  // one rank of a run started on several machines
  if (joins) {
    config.workers = world_size_;
    validateConfig(config);
  }
  std::optional<BudgetFit> fit;
  MemoryModel memory;
  if (effective_batch_ > 0) {
    const int64_t budget = config.memory_budget;
    memory = probeMemoryModel(config);
    // On N workers the window m·K·N is B: each worker fits m·K = B/N in its budget.
    if (effective_batch_ % config.workers != 0) {
      throw InputError("--effective-batch " + std::to_string(effective_batch_) +
                       " is not a multiple of the " + std::to_string(config.workers) +
                       " workers; give a multiple of " + std::to_string(config.workers) +
                       ", so that each takes an equal share of the window");
    }
    fit = fitMemoryBudget(memory, budget, effective_batch_ / config.workers);
    config.micro_batch = fit->micro_batch;
    config.accum = fit->accum;
    validateConfig(config);
    std::cerr << "accumlab-cli: " << fit->reason << std::endl;
  }
  RunSessionOptions options;
  // Rank 0 stores the run; the other ranks report to it.
  if (!no_store_ && !(joins && rank_ > 0)) options.store_path = db_path;
  options.resume_experiment = resume_experiment;
  options.checkpoint_every = checkpoint_every_;
  options.target = stopTarget();
  options.worker_program = executablePath();
  options.worker_timeout_s = worker_timeout_;
  if (joins) options.join = joinOptions();
  RunSession session(config, options);
  Trainer& trainer = session.trainer();
  if (joins && rank_ > 0) return runAsWorker(session);
  // Ctrl-C or SIGTERM: stop at the next window boundary, store the runs as `stopped`, print
  // the summary; a second signal quits at once.
  app::StopOnSignal on_signal("accumlab-cli", "stopping at the next window boundary",
                              [&trainer] { trainer.requestStop(); });
  const bool jsonl = progress_ == ProgressFormat::kJsonl;
  ProgressSink progress(stderr, isatty(fileno(stderr)) != 0);
  JsonProgressSink json_progress(stderr);
  NullSink silent;
  MetricsSink& sink = quiet_  ? static_cast<MetricsSink&>(silent)
                      : jsonl ? static_cast<MetricsSink&>(json_progress)
                              : progress;
  StoreSink* store = session.store();
  std::unique_ptr<StoredRunNotice> notice;
  std::vector<MetricsSink*> sinks = {&sink};
  if (store && !jsonl) {  // JSON lines carry no text; --json says where the run is stored
    notice = std::make_unique<StoredRunNotice>(*store, stderr);
    sinks = {notice.get(), &sink};
  }
  RunSummary summary;
  try {
    summary = session.run(sinks);
  } catch (const ReadStopped& e) {
    // Stopped before the first window: nothing was trained, so nothing was stored.
    std::cerr << "accumlab-cli: " << e.what() << "; nothing was trained or stored" << std::endl;
    const int signo = on_signal.signalReceived();
    return signo ? 128 + signo : 1;
  }
  if (json_) {
    nlohmann::json out = nlohmann::json::parse(summaryToJson(summary));
    if (store) out["store"] = storedJson(*store);
    if (fit) {
      out["memory_budget"] = {{"budget_bytes", config.memory_budget},
                              {"effective_batch", effective_batch_},
                              {"micro_batch", fit->micro_batch},
                              {"accum", fit->accum},
                              {"predicted_peak_tensor_bytes", fit->predicted_bytes},
                              {"fixed_bytes", memory.fixed_bytes},
                              {"per_sample_bytes", memory.per_sample_bytes},
                              {"accum_extra_bytes", memory.accum_extra_bytes},
                              {"reason", fit->reason}};
    }
    std::cout << out.dump(2) << std::endl;
  } else {
    std::cout << formatSummaryTable(summary);
    if (store) std::cout << "Stored as " << describeStored(*store) << "\n";
    std::cout << std::flush;
  }
  bool workers_failed = false;
  for (const std::string& problem : session.finish()) {  // throws (exit 2) when storing failed
    std::cerr << "accumlab-cli: " << problem << std::endl;
    workers_failed = true;
  }
  // A run stopped by a signal ends as the signal would have ended it (130 for Ctrl-C), so
  // that `run && next` does not go on; its rows are stored all the same.
  if (const int signo = on_signal.signalReceived()) return 128 + signo;
  for (const ArmSummary& arm : summary.arms) {
    if (arm.status == ArmStatus::kFailed) return 1;
  }
  return workers_failed ? 1 : 0;
}

int RunCommand::runAsWorker(RunSession& session) {
  Trainer& trainer = session.trainer();
  // Rank 0 stores the run and prints its summary; this rank says what went wrong here, and
  // with --json prints its own summary.
  app::StopOnSignal on_signal("accumlab-cli",
                              "rank " + std::to_string(rank_) + " stopping with the others",
                              [&trainer] { trainer.requestStop(); });
  const RunSummary summary = session.run({});
  // --json: this rank's own view (its throughput, its all-reduce wait, its weights' digest).
  if (json_) std::cout << nlohmann::json::parse(summaryToJson(summary)).dump(2) << std::endl;
  for (const ArmSummary& arm : summary.arms) {
    if (arm.status == ArmStatus::kFailed) {
      std::cerr << "accumlab-cli (rank " << rank_ << "): " << arm.message << std::endl;
      return 1;
    }
  }
  if (const int signo = on_signal.signalReceived()) return 128 + signo;
  return 0;
}

}  // namespace accumlab::cli
