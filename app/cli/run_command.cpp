#include "run_command.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include "accumlab/input_error.h"
#include "accumlab/memory_model.h"
#include "accumlab/run_store.h"
#include "accumlab/trainer.h"
#include "progress_sink.h"
#include "stop_on_signal.h"
#include "stored_run_notice.h"
#include "summary_table.h"

namespace accumlab::cli {

namespace {

std::vector<ArmKind> parseArms(const std::string& list) {
  std::vector<ArmKind> arms;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) arms.push_back(parseArmKind(item));
  }
  if (arms.empty()) throw InputError("--arms needs at least one of no-accum, accum, big-batch");
  return arms;
}

}  // namespace

template <typename Access>
CLI::Option* RunCommand::add(const char* name, Access access, const char* help) {
  CLI::Option* opt = app_->add_option(name, access(given_), help);
  overrides_.emplace_back(opt, [this, access](ExperimentConfig& dst) { access(dst) = access(given_); });
  return opt;
}

RunCommand::RunCommand(CLI::App& parent) {
  app_ = parent.add_subcommand("run", "Train the arms of one experiment side by side");
  app_->option_defaults()->always_capture_default();
  app_->add_option("--config", config_file_, "JSON experiment file; options given here override it")
      ->check(CLI::ExistingFile);
  add("--name", [](auto& c) -> auto& { return c.name; }, "A name for the experiment");
  add("--data", [](auto& c) -> auto& { return c.data; }, "spirals, blobs[:SHAPE], linreg[:D], fashion-mnist, idx:DIR, cifar10:DIR, csv:FILE");
  add("--label", [](auto& c) -> auto& { return c.label; }, "CSV label column (name or index)");
  app_->add_option("--task", task_, "classification | regression (CSV)");
  add("--val-fraction", [](auto& c) -> auto& { return c.val_fraction; }, "Held-out share when the dataset has no test split");
  add("--synthetic-samples", [](auto& c) -> auto& { return c.synthetic_samples; }, "Size of a synthetic dataset");
  add("--model", [](auto& c) -> auto& { return c.model; }, "logreg, mlp, mlp:256,128, cnn, cnn_bn, torchscript:FILE.pt");
  auto* micro = add("--micro-batch,-m", [](auto& c) -> auto& { return c.micro_batch; }, "Micro-batch size m")
      ->check(CLI::PositiveNumber);
  auto* accum = add("--accum,-k", [](auto& c) -> auto& { return c.accum; }, "Micro-batches per update K")
      ->check(CLI::PositiveNumber);
  auto* budget = app_->add_option("--memory-budget", memory_budget_,
                                  "Choose m and K so that an update's tensors fit SIZE (e.g. "
                                  "200MiB), measured by two short probes; needs --effective-batch");
  auto* effective = app_->add_option("--effective-batch", effective_batch_,
                                     "m·K to keep with --memory-budget")
                        ->check(CLI::PositiveNumber);
  budget->needs(effective)->excludes(micro)->excludes(accum);
  effective->needs(budget);
  app_->add_option("--arms", arms_, "Comma list of no-accum, accum, big-batch");
  app_->add_option("--optimizer", optimizer_, "sgd | adam | adamw");
  add("--lr", [](auto& c) -> auto& { return c.optimizer.lr; }, "Base learning rate (the no-accum arm's)");
  add("--momentum", [](auto& c) -> auto& { return c.optimizer.momentum; }, "SGD momentum");
  add("--nesterov", [](auto& c) -> auto& { return c.optimizer.nesterov; }, "SGD with Nesterov momentum (true/false)");
  add("--weight-decay", [](auto& c) -> auto& { return c.optimizer.weight_decay; }, "Weight decay (decoupled for adamw)");
  add("--beta1", [](auto& c) -> auto& { return c.optimizer.beta1; }, "Adam β1");
  add("--beta2", [](auto& c) -> auto& { return c.optimizer.beta2; }, "Adam β2");
  app_->add_option("--lr-scaling", scaling_, "LR rule for accum/big-batch: none | linear | sqrt");
  app_->add_option("--lr-schedule", schedule_, "constant | step | cosine");
  add("--warmup-samples", [](auto& c) -> auto& { return c.optimizer.warmup_samples; }, "Linear LR warm-up, in samples");
  add("--step-every", [](auto& c) -> auto& { return c.optimizer.step_every_samples; }, "Step schedule period in samples (0: an epoch)");
  add("--step-gamma", [](auto& c) -> auto& { return c.optimizer.step_gamma; }, "Step schedule factor");
  add("--clip-norm", [](auto& c) -> auto& { return c.optimizer.clip_norm; }, "Clip the accumulated gradient to this norm (0: off)");
  app_->add_option("--window-policy", policy_, "stream | flush-exact | flush-divide-by-K | drop");
  app_->add_option("--dtype", dtype_, "float32 | float64");
  add("--device", [](auto& c) -> auto& { return c.device; }, "auto | cpu | cuda | cuda:N");
  add("--seed", [](auto& c) -> auto& { return c.seed; }, "Seed of weights, data and sample order");
  auto* epochs = add("--epochs", [](auto& c) -> auto& { return c.epochs; }, "Budget in epochs");
  auto* samples = add("--samples", [](auto& c) -> auto& { return c.samples; }, "Budget in samples per arm");
  epochs->excludes(samples);
  add("--eval-every", [](auto& c) -> auto& { return c.eval_every; }, "Evaluate every N samples (0: each epoch)");
  add("--variance-window", [](auto& c) -> auto& { return c.variance_window; }, "W, updates in the rolling loss variance");
  add("--probe-repeats", [](auto& c) -> auto& { return c.probe_repeats; },
      "R: micro-batches and windows per fixed-weight variance probe (0: off)")
      ->check(CLI::NonNegativeNumber);
  add("--probe-every", [](auto& c) -> auto& { return c.probe_every; },
      "Probe the loss variance at fixed weights every N samples (0: at each evaluation; default 10000)")
      ->check(CLI::NonNegativeNumber);
  add("--threads", [](auto& c) -> auto& { return c.threads; }, "CPU threads (0: default)");
  app_->add_flag("--no-noise-stats", no_noise_, "Skip the gradient-noise estimators");
  add("--grad-check-every", [](auto& c) -> auto& { return c.grad_check_every; },
      "Every N-th accum step, compare the accumulated gradient with one big batch's (0: off)")
      ->check(CLI::NonNegativeNumber);
  app_->add_flag("--json", json_, "Print the summary as JSON on stdout");
  app_->add_flag("--quiet,-q", quiet_, "No progress display");
  auto* db = app_->add_option("--db", db_, "Run database (default: " + RunStore::defaultPath() + ")");
  app_->add_flag("--no-store", no_store_, "Do not store the run")->excludes(db);
}

ExperimentConfig RunCommand::resolveConfig() const {
  ExperimentConfig c = config_file_.empty() ? ExperimentConfig{} : loadConfigFile(config_file_);
  for (const auto& [opt, apply] : overrides_) {
    if (opt->count() > 0) apply(c);
  }
  if (!arms_.empty()) c.arms = parseArms(arms_);
  if (!optimizer_.empty()) c.optimizer.kind = parseOptimizerKind(optimizer_);
  if (!scaling_.empty()) c.optimizer.scaling = parseLrScaling(scaling_);
  if (!schedule_.empty()) c.optimizer.schedule = parseLrSchedule(schedule_);
  if (!policy_.empty()) c.window_policy = parseWindowPolicy(policy_);
  if (!dtype_.empty()) c.dtype = parseDType(dtype_);
  if (!task_.empty()) c.task = parseTask(task_);
  if (app_->get_option("--epochs")->count() > 0) c.samples = 0;
  if (app_->get_option("--samples")->count() > 0) c.epochs = 0;
  if (no_noise_) c.noise_stats = false;
  validateConfig(c);
  return c;
}

int RunCommand::execute() {
  ExperimentConfig config = resolveConfig();
  std::optional<BudgetFit> fit;
  MemoryModel memory;
  if (!memory_budget_.empty()) {
    const int64_t budget = parseByteSize(memory_budget_);
    memory = probeMemoryModel(config);
    fit = fitMemoryBudget(memory, budget, effective_batch_);
    config.micro_batch = fit->micro_batch;
    config.accum = fit->accum;
    validateConfig(config);
    std::cerr << "accumlab-cli: " << fit->reason << std::endl;
  }
  Trainer trainer(config);
  // Ctrl-C or SIGTERM: stop at the next window boundary, store the runs as `stopped`, print
  // the summary; a second signal quits at once.
  app::StopOnSignal on_signal("accumlab-cli", "stopping at the next window boundary",
                              [&trainer] { trainer.requestStop(); });
  ProgressSink progress(stderr, isatty(fileno(stderr)) != 0);
  struct Silent : MetricsSink {
    void onStep(const StepRecord&) override {}
  } silent;
  MetricsSink& sink = quiet_ ? static_cast<MetricsSink&>(silent) : progress;
  std::unique_ptr<StoreSink> store;
  if (!no_store_) store = std::make_unique<StoreSink>(db_.empty() ? RunStore::defaultPath() : db_);
  std::unique_ptr<StoredRunNotice> notice;
  std::vector<MetricsSink*> sinks = {&sink};
  if (store) {
    notice = std::make_unique<StoredRunNotice>(*store, stderr);
    sinks = {store.get(), notice.get(), &sink};
  }
  FanOutSink fan(sinks);
  const RunSummary summary = trainer.run(fan);
  if (json_) {
    nlohmann::json out = nlohmann::json::parse(summaryToJson(summary));
    if (store) out["store"] = storedJson(*store);
    if (fit) {
      out["memory_budget"] = {{"budget_bytes", parseByteSize(memory_budget_)},
                              {"effective_batch", effective_batch_},
                              {"micro_batch", fit->micro_batch},
                              {"accum", fit->accum},
                              {"predicted_peak_tensor_bytes", fit->predicted_bytes},
                              {"fixed_bytes", memory.fixed_bytes},
                              {"per_sample_bytes", memory.per_sample_bytes},
                              {"reason", fit->reason}};
    }
    std::cout << out.dump(2) << std::endl;
  } else {
    std::cout << formatSummaryTable(summary);
    if (store) std::cout << "Stored as " << describeStored(*store) << "\n";
    std::cout << std::flush;
  }
  if (store) store->finish();  // throws (exit 2) when storing failed on the way
  // A run stopped by a signal ends as the signal would have ended it (130 for Ctrl-C), so
  // that `run && next` does not go on; its rows are stored all the same.
  if (const int signo = on_signal.signalReceived()) return 128 + signo;
  for (const ArmSummary& arm : summary.arms) {
    if (arm.status == ArmStatus::kFailed) return 1;
  }
  return 0;
}

}  // namespace accumlab::cli
