// SPDX-License-Identifier: GPL-3.0-or-later
#include "config_options.h"

#include <sstream>

#include "accumlab/device.h"
#include "accumlab/input_error.h"
#include "accumlab/memory_model.h"
#include "cli_main.h"
#include "completion_hints.h"

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

/// How many arms train at once when neither --arm-threads nor a --config file says: one per
/// core, as in the app and the presets. On 2 cores the default experiment takes about half the
/// wall time of one after another (docs/performance.md), with the same numbers.
constexpr int kArmThreadsByDefault = 0;

/// The data SPECs and models --data and --model complete to; a word ending in ':' takes a
/// file, a folder or sizes after it (docs/data-and-models.md).
const std::vector<std::string> kDataWords = {
    "spirals", "blobs", "linreg", "fashion-mnist", "fortunes", "idx:", "cifar10:", "csv:", "text:"};
const std::vector<std::string> kModelWords = {
    "logreg", "mlp", "mlp:", "cnn", "cnn_bn", "charlm", "charlm-transformer", "torchscript:"};

/// "--micro-batch" of "--micro-batch,-m".
std::string firstName(const char* names) {
  const std::string all(names);
  return all.substr(0, all.find(','));
}

/// --device's help: what it takes, and whether this LibTorch can train on a GPU here.
std::string deviceHelp() {
  const int gpus = cudaDeviceCount();
  if (gpus > 0) {
    return "auto | cpu | cuda | cuda:N (CUDA available: " + std::to_string(gpus) + " device" +
           (gpus == 1 ? "" : "s") + "; auto picks cuda:0)";
  }
  return "auto | cpu | cuda | cuda:N (CUDA unavailable: this LibTorch has no CUDA or sees no "
         "GPU; auto picks cpu)";
}

}  // namespace

bool ConfigOptions::skipped(const char* name) const { return skip_.count(firstName(name)) > 0; }

template <typename Access>
CLI::Option* ConfigOptions::add(const char* name, Access access, const char* help) {
  if (skipped(name)) return nullptr;
  CLI::Option* opt = app_->add_option(name, access(given_), help);
  setters_.emplace_back(opt,
                        [this, access](ConfigOverrides& dst) { access(dst) = access(given_); });
  return opt;
}

CLI::Option* ConfigOptions::addText(
    const char* name, std::string& text, const char* help,
    std::function<void(ConfigOverrides&, const std::string&)> apply) {
  if (skipped(name)) return nullptr;
  CLI::Option* opt = app_->add_option(name, text, help);
  setters_.emplace_back(opt, [&text, apply](ConfigOverrides& dst) { apply(dst, text); });
  return opt;
}

template <typename E, typename Access>
CLI::Option* ConfigOptions::addEnum(const char* name, Access access, const char* help) {
  std::string& text = enum_texts_.emplace_back();
  return completeWith(addText(name, text, help,
                              [access](ConfigOverrides& dst, const std::string& t) {
                                access(dst) = kNames<E>.parse(t);
                              }),
                      {enumNames<E>()});
}

CLI::Option* ConfigOptions::option(const std::string& name) const {
  if (skip_.count(name) > 0) return nullptr;
  return app_->get_option(name);
}

ConfigOptions::ConfigOptions(CLI::App& app, std::set<std::string> skip)
    : app_(&app), skip_(std::move(skip)) {
  given_.arm_threads = kArmThreadsByDefault;  // the default --help shows
  auto* config = app_->add_option("--config", config_file_,
                                  "JSON experiment file; options given here override it")
                     ->check(CLI::ExistingFile);
  auto* preset =
      app_->add_option("--preset", preset_,
                       "Start from a named experiment: default (the app's first one: Fashion-MNIST "
                       "when installed) or fortunes (text: a character GRU on the fortune quotes); "
                       "options given here override it");
  preset->excludes(config);
  completeWith(preset, {{"default", "fortunes"}});
  add(
      "--name", [](auto& c) -> auto& { return c.name; }, "A name for the experiment");
  completeWith(add(
                   "--data", [](auto& c) -> auto& { return c.data; },
                   "spirals, blobs[:SHAPE], linreg[:D], fashion-mnist, idx:DIR, cifar10:DIR, "
                   "csv:FILE, fortunes, text:FILE"),
               {kDataWords});
  add(
      "--label", [](auto& c) -> auto& { return c.label; }, "CSV label column (name or index)");
  addEnum<Task>(
      "--task", [](auto& c) -> auto& { return c.task; }, "classification | regression (CSV)");
  add(
      "--val-fraction", [](auto& c) -> auto& { return c.val_fraction; },
      "Held-out share when the dataset has no test split");
  addEnum<TextSplit>(
      "--text-split", [](auto& c) -> auto& { return c.text_split; },
      "Text data: a sequence per line (default) or paragraph");
  if (auto* o = add(
          "--max-len", [](auto& c) -> auto& { return c.max_len; },
          "Text data: bytes kept of each sequence (default 256)")) {
    o->check(CLI::Range(int64_t{1}, kMaxTextLength));
  }
  addEnum<TokenLoss>(
      "--token-loss", [](auto& c) -> auto& { return c.token_loss; },
      "Text data: tokens (default: the window's per-token mean, exact) | sequences (each "
      "sequence's mean, then their mean: another objective)");
  add(
      "--synthetic-samples", [](auto& c) -> auto& { return c.synthetic_samples; },
      "Size of a synthetic dataset");
  completeWith(add(
                   "--model", [](auto& c) -> auto& { return c.model; },
                   "logreg, mlp, mlp:256,128, cnn, cnn_bn, charlm, charlm-transformer, "
                   "torchscript:FILE.pt"),
               {kModelWords});
  if (auto* o = add(
          "--micro-batch,-m", [](auto& c) -> auto& { return c.micro_batch; },
          "Micro-batch size m")) {
    o->check(kPositive);
  }
  if (auto* o = add(
          "--accum,-k", [](auto& c) -> auto& { return c.accum; }, "Micro-batches per update K")) {
    o->check(kPositive);
  }
  addText("--memory-budget", memory_budget_,
          "Tensor memory an arm may hold at once (e.g. 200MiB). On CPU it is enforced: a "
          "micro-batch that does not fit is split in halves, with the same update",
          [](auto& c, const std::string& t) { c.memory_budget = parseByteSize(t); });
  completeWith(
      addText("--arms", arms_,
              "Comma list of no-accum, accum, big-batch and the pitfall arms (pitfall:sum, "
              "pitfall:last-only, pitfall:double-last, pitfall:mean-of-means, pitfall:clip-each, "
              "pitfall:no-zero, pitfall:schedule-per-micro: docs/pitfalls.md)",
              [](auto& c, const std::string& t) { c.arms = parseArms(t); }),
      {enumNames<ArmKind>(), true});
  addEnum<OptimizerKind>(
      "--optimizer", [](auto& c) -> auto& { return c.optimizer.kind; }, "sgd | adam | adamw");
  add(
      "--lr", [](auto& c) -> auto& { return c.optimizer.lr; },
      "Base learning rate (the no-accum arm's)");
  add(
      "--momentum", [](auto& c) -> auto& { return c.optimizer.momentum; }, "SGD momentum");
  add(
      "--nesterov", [](auto& c) -> auto& { return c.optimizer.nesterov; },
      "SGD with Nesterov momentum (true/false)");
  add(
      "--weight-decay", [](auto& c) -> auto& { return c.optimizer.weight_decay; },
      "Weight decay (decoupled for adamw)");
  add(
      "--beta1", [](auto& c) -> auto& { return c.optimizer.beta1; }, "Adam β1");
  add(
      "--beta2", [](auto& c) -> auto& { return c.optimizer.beta2; }, "Adam β2");
  addEnum<LrScaling>(
      "--lr-scaling", [](auto& c) -> auto& { return c.optimizer.scaling; },
      "LR rule for accum/big-batch: none | linear | sqrt");
  addEnum<LrSchedule>(
      "--lr-schedule", [](auto& c) -> auto& { return c.optimizer.schedule; },
      "constant | step | cosine");
  add(
      "--warmup-samples", [](auto& c) -> auto& { return c.optimizer.warmup_samples; },
      "Linear LR warm-up, in samples");
  add(
      "--step-every", [](auto& c) -> auto& { return c.optimizer.step_every_samples; },
      "Step schedule period in samples (0: an epoch)");
  add(
      "--step-gamma", [](auto& c) -> auto& { return c.optimizer.step_gamma; },
      "Step schedule factor");
  add(
      "--clip-norm", [](auto& c) -> auto& { return c.optimizer.clip_norm; },
      "Clip the accumulated gradient to this norm (0: off)");
  addEnum<WindowPolicy>(
      "--window-policy", [](auto& c) -> auto& { return c.window_policy; },
      "stream | flush-exact | flush-divide-by-K | drop");
  addEnum<DType>(
      "--dtype", [](auto& c) -> auto& { return c.dtype; }, "float32 | float64");
  if (auto* o = add(
          "--device", [](auto& c) -> auto& { return c.device; }, "auto | cpu | cuda | cuda:N")) {
    o->description(deviceHelp());
    completeWith(o, {{"auto", "cpu", "cuda", "cuda:"}});
  }
  add(
      "--seed", [](auto& c) -> auto& { return c.seed; }, "Seed of weights, data and sample order");
  auto* epochs = add(
      "--epochs", [](auto& c) -> auto& { return c.epochs; }, "Budget in epochs");
  auto* samples = add(
      "--samples", [](auto& c) -> auto& { return c.samples; }, "Budget in samples per arm");
  if (epochs && samples) epochs->excludes(samples);
  add(
      "--eval-every", [](auto& c) -> auto& { return c.eval_every; },
      "Evaluate every N samples (0: each epoch)");
  add(
      "--variance-window", [](auto& c) -> auto& { return c.variance_window; },
      "W, updates in the rolling loss variance");
  if (auto* o = add(
          "--probe-repeats", [](auto& c) -> auto& { return c.probe_repeats; },
          "R: micro-batches and windows per fixed-weight variance probe (0: off)")) {
    o->check(kNonNegative);
  }
  if (auto* o = add(
          "--probe-every", [](auto& c) -> auto& { return c.probe_every; },
          "Probe the loss variance at fixed weights every N samples (0: at each evaluation; "
          "default 10000)")) {
    o->check(kNonNegative);
  }
  add(
      "--threads", [](auto& c) -> auto& { return c.threads; }, "CPU threads (0: default)");
  if (auto* o = add(
          "--arm-threads", [](auto& c) -> auto& { return c.arm_threads; },
          "Arms trained at once, each on its own thread: 0 (the default) one per core, 1 one "
          "after another, N at most N; a --config file's arm_threads stands unless this is "
          "given. The numbers are the same to the last digit however many: each arm draws "
          "from its own generators, and the arms meet only at the sample positions that tie "
          "them (docs/performance.md)")) {
    o->check(kNonNegative);
  }
  if (auto* o = add(
          "--workers", [](auto& c) -> auto& { return c.workers; },
          "N data-parallel processes on this machine: each accum window takes m·K·N samples, "
          "each worker accumulates K micro-batches alone, one all-reduce per window")) {
    o->check(CLI::Range(int64_t{1}, kMaxWorkers));
  }
  completeWith(addText("--keep-weights", keep_weights_,
                       "on (default): keep each arm's final weights in the store, for "
                       "export-model | off",
                       [](auto& c, const std::string& t) {
                         if (t != "on" && t != "off") {
                           throw InputError("--keep-weights takes on or off, not '" + t + "'");
                         }
                         c.keep_weights = t == "on";
                       }),
               {{"on", "off"}});
  if (!skipped("--no-noise-stats")) {
    app_->add_flag("--no-noise-stats", no_noise_, "Skip the gradient-noise estimators");
  }
  if (auto* o = add(
          "--grad-check-every", [](auto& c) -> auto& { return c.grad_check_every; },
          "Every N-th accum step and every irregular window (epoch end, first after a "
          "change or a resume), compare the accumulated gradient with one big batch's (0: off)")) {
    o->check(kNonNegative);
  }
}

ConfigOverrides ConfigOptions::overrides() const {
  ConfigOverrides o;
  o.config_file = config_file_;
  o.preset = preset_;
  for (const auto& [opt, set] : setters_) {
    if (opt->count() > 0) set(o);
  }
  if (no_noise_) o.noise_stats = false;
  return o;
}

ExperimentConfig ConfigOptions::resolve() const {
  ExperimentConfig plain;
  plain.arm_threads = kArmThreadsByDefault;
  // The file is read before the options are parsed, so that its errors come first.
  ConfigOverrides start;
  start.config_file = config_file_;
  start.preset = preset_;
  ExperimentConfig c = startingConfig(start, plain);
  applyOverrides(overrides(), &c);
  return c;
}

}  // namespace accumlab::cli
