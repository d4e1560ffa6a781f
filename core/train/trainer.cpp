#include "accumlab/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "accumlab/device.h"
#include "accumlab/input_error.h"
#include "data/dataset_factory.h"
#include "stats/weight_diff.h"
#include "train/arm.h"
#include "train/device_select.h"
#include "train/evaluator.h"
#include "train/memory_probe.h"
#include "train/optimizer_factory.h"
#include "train/trainer_control.h"

namespace accumlab {

namespace {

// A K = 1 arm measures gradient noise by splitting one window in two halves every this many
// windows (each probe costs one extra forward/backward call).
constexpr int64_t kNoiseProbeEvery = 4;
// Memory is read from /proc at most this often per arm.
constexpr double kMemoryPollMs = 200.0;

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool isOutOfMemory(const std::exception& e) {
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos ||
         dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
}

std::string shapeText(c10::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

Arm::Arm(ArmKind k, std::unique_ptr<Model> m, const Dataset& data, torch::Device device,
         torch::Dtype dtype, uint64_t seed, double noise_ema, int64_t variance_window)
    : kind(k),
      model(std::move(m)),
      params(model->parameters()),
      window(*model, data, device, dtype),
      stream(data.trainSize(), seed),
      noise(noise_ema),
      losses(variance_window) {}

struct Trainer::Impl {
  explicit Impl(ExperimentConfig c) : config(std::move(c)) {}

  ExperimentConfig config;
  TrainerControl control;

  // Set up by run(), used by the training thread only.
  Dataset data;
  torch::Device device{torch::kCPU};
  torch::Dtype dtype = torch::kFloat32;
  std::vector<std::unique_ptr<Arm>> arms;
  int64_t budget = 0;
  int64_t eval_period = 0;
  int64_t m = 0;
  int64_t k = 0;
  Clock::time_point start;
  double last_memory_poll_ms = -1e9;
  int64_t last_memory = 0;
  MetricsSink* sink = nullptr;

  void setUp();
  void checkModelFits(Model& model);
  Arm* nextArm();
  /// Applies pause and pending m/K changes; `at` is the samples seen by the next arm.
  void applyControls(int64_t at);
  void applySizes();
  void trainWindow(Arm& arm);
  void finishArm(Arm& arm, ArmStatus status, const std::string& message);
  void evaluateArm(Arm& arm);
  void emitEvent(const std::string& kind, const std::string& arm, const std::string& message,
                 int64_t samples);
  Arm* find(ArmKind kind);
  ArmSummary summarize(Arm& arm);
  int64_t memoryNow();
};

Trainer::Trainer(ExperimentConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Trainer::~Trainer() = default;

void Trainer::requestPause() { impl_->control.requestPause(); }
void Trainer::requestResume() { impl_->control.requestResume(); }
void Trainer::requestStop() { impl_->control.requestStop(); }
void Trainer::requestMicroBatch(int64_t m) { impl_->control.requestMicroBatch(m); }
void Trainer::requestAccum(int64_t k) { impl_->control.requestAccum(k); }
bool Trainer::isPaused() const { return impl_->control.paused(); }

void Trainer::Impl::checkModelFits(Model& model) {
  // A 1-sample dry run: shape mismatches surface here as one clear sentence.
  torch::NoGradGuard no_grad;
  model.setTraining(false);
  torch::Tensor x = data.trainInputs(torch::zeros({1}, torch::kLong), dtype, device);
  torch::Tensor out;
  try {
    out = model.forward(x);
  } catch (const InputError&) {
    throw;  // already a sentence about this model (e.g. a TorchScript forward returning a tuple)
  } catch (const std::exception& e) {
    std::string detail = e.what();
    detail = detail.substr(0, detail.find('\n'));
    throw InputError("model '" + model.spec() + "' cannot take samples of shape " +
                     shapeText(x.sizes().slice(1)) + " from dataset '" + data.name +
                     "' (" + detail + "); pick a model made for this input shape");
  }
  model.setTraining(true);
  if (out.dim() != 2 || out.size(0) != 1 || out.size(1) != data.num_outputs) {
    throw InputError("model '" + model.spec() + "' outputs " + shapeText(out.sizes()) +
                     " per sample but dataset '" + data.name + "' needs [1x" +
                     std::to_string(data.num_outputs) + "] (" +
                     (data.task == Task::kClassification ? "one logit per class"
                                                         : "one value per target") +
                     "); change the model's last layer");
  }
}

void Trainer::Impl::setUp() {
  validateConfig(config);
  std::sort(config.arms.begin(), config.arms.end());  // canonical order: ties go to accum first
  configureThreads(config.threads);
  device = resolveDevice(config.device);
  dtype = config.dtype == DType::kFloat64 ? torch::kFloat64 : torch::kFloat32;
  data = loadDataset(config);
  if (data.trainSize() < 1) throw InputError("dataset '" + config.data + "' has no training samples");
  budget = config.samples > 0
               ? config.samples
               : static_cast<int64_t>(std::ceil(config.epochs * static_cast<double>(data.trainSize())));
  eval_period = config.eval_every > 0 ? config.eval_every : data.trainSize();
  m = config.micro_batch;
  k = config.accum;

  auto factory = makeModelFactory(config.model, data.sample_shape, data.num_outputs, config.seed);
  for (ArmKind kind : config.arms) {
    auto model = factory->create();
    model->to(device, dtype);
    if (!arms.empty()) model->copyStateFrom(*arms.front()->model);
    checkModelFits(*model);
    arms.push_back(std::make_unique<Arm>(kind, std::move(model), data, device, dtype, config.seed,
                                         config.noise_ema, config.variance_window));
  }
  for (auto& arm : arms) {
    arm->optimizer = makeOptimizer(config.optimizer, arm->params, config.optimizer.lr);
    arm->next_eval = eval_period;
  }
  applySizes();
}

void Trainer::Impl::applySizes() {
  for (auto& arm : arms) {
    arm->micro_batch = armMicroBatch(arm->kind, m, k);
    arm->accum = armAccum(arm->kind, m, k);
    const double ratio = arm->kind == ArmKind::kNoAccum ? 1.0 : static_cast<double>(k);
    arm->base_lr = scaledBaseLr(config.optimizer, ratio);
    arm->lr = scheduledLr(config.optimizer, arm->base_lr, arm->stream.consumed(), budget,
                          data.trainSize());
    if (arm->optimizer) setLearningRate(*arm->optimizer, arm->lr);
  }
}

Arm* Trainer::Impl::find(ArmKind kind) {
  for (auto& arm : arms) {
    if (arm->kind == kind) return arm.get();
  }
  return nullptr;
}

Arm* Trainer::Impl::nextArm() {
  // Round-robin by samples seen: the arm furthest behind goes next, ties in arm order.
  Arm* best = nullptr;
  for (auto& arm : arms) {
    if (arm->status != ArmStatus::kRunning) continue;
    if (!best || arm->stream.consumed() < best->stream.consumed()) best = arm.get();
  }
  return best;
}

void Trainer::Impl::emitEvent(const std::string& kind, const std::string& arm,
                              const std::string& message, int64_t samples) {
  EventRecord e;
  e.samples_seen = samples;
  e.wall_ms = msSince(start);
  e.kind = kind;
  e.arm = arm;
  e.message = message;
  sink->onEvent(e);
}

void Trainer::Impl::applyControls(int64_t at) {
  if (control.paused() && !control.stopRequested()) {
    emitEvent("pause", "", "paused at " + std::to_string(at) + " samples", at);
    const auto paused_at = Clock::now();
    control.waitWhilePaused();
    emitEvent("resume", "",
              "resumed after " + std::to_string(static_cast<int64_t>(msSince(paused_at))) + " ms",
              at);
  }
  bool changed = false;
  if (auto new_m = control.takeMicroBatch(); new_m && *new_m != m) {
    if (*new_m < 1) {
      emitEvent("rejected", "", "micro-batch " + std::to_string(*new_m) + " ignored: must be ≥ 1", at);
    } else {
      emitEvent("micro_batch", "",
                "micro-batch " + std::to_string(m) + " → " + std::to_string(*new_m), at);
      m = *new_m;
      changed = true;
    }
  }
  if (auto new_k = control.takeAccum(); new_k && *new_k != k) {
    if (*new_k < 1) {
      emitEvent("rejected", "", "K " + std::to_string(*new_k) + " ignored: must be ≥ 1", at);
    } else {
      emitEvent("accum", "", "K " + std::to_string(k) + " → " + std::to_string(*new_k), at);
      k = *new_k;
      changed = true;
    }
  }
  if (changed) applySizes();
}

int64_t Trainer::Impl::memoryNow() {
  const double now = msSince(start);
  if (now - last_memory_poll_ms >= kMemoryPollMs) {
    last_memory = memoryInUse(device);
    last_memory_poll_ms = now;
  }
  return last_memory;
}

void Trainer::Impl::finishArm(Arm& arm, ArmStatus status, const std::string& message) {
  arm.status = status;
  arm.message = message;
  if (status == ArmStatus::kFinished || status == ArmStatus::kStopped) {
    if (!arm.last_eval || arm.last_eval->step != arm.step) evaluateArm(arm);
  }
  sink->onArmFinished(summarize(arm));
}

void Trainer::Impl::evaluateArm(Arm& arm) {
  if (data.valSize() == 0) return;
  const EvalResult r = evaluate(*arm.model, data, device, dtype);
  EvalRecord e;
  e.arm = arm.kind;
  e.step = arm.step;
  e.samples_seen = arm.stream.consumed();
  e.wall_ms = msSince(start);
  e.loss = r.loss;
  e.accuracy = r.accuracy;
  arm.last_eval = e;
  sink->onEval(e);
}

void Trainer::Impl::trainWindow(Arm& arm) {
  const int64_t left = budget - arm.stream.consumed();
  if (left <= 0) {
    finishArm(arm, ArmStatus::kFinished, "");
    return;
  }
  const auto t0 = Clock::now();
  WindowPlan plan = planWindow(arm.stream, arm.micro_batch, arm.accum, config.window_policy, left);
  if (plan.dropped) {
    emitEvent("dropped", toString(arm.kind),
              "dropped a partial window of " + std::to_string(plan.consumed) +
                  " samples at the epoch end (policy drop)",
              arm.stream.consumed());
  } else {
    if (config.noise_stats && plan.micro_batches.size() == 1 && !arm.model->batchDependent() &&
        ++arm.windows_since_probe >= kNoiseProbeEvery) {
      arm.windows_since_probe = 0;
      plan = splitInHalves(plan);
    }
    const WindowResult r = arm.window.run(plan, config.noise_stats);
    if (!r.finite) {
      arm.diverged_at_step = arm.step + 1;
      const std::string msg = "loss became " + std::string(std::isnan(r.loss) ? "NaN" : "infinite") +
                              " at step " + std::to_string(arm.step + 1) +
                              "; lower the learning rate or enable gradient clipping";
      emitEvent("diverged", toString(arm.kind), msg, arm.stream.consumed());
      finishArm(arm, ArmStatus::kDiverged, msg);
      return;
    }
    StepRecord rec;
    // The norm of the applied gradient (clip_grad_norm_ returns the pre-clip norm).
    if (config.optimizer.clip_norm > 0) {
      rec.grad_norm = torch::nn::utils::clip_grad_norm_(arm.params, config.optimizer.clip_norm);
    } else {
      rec.grad_norm = std::sqrt(r.grad_sq);
    }
    rec.lr = arm.lr;
    arm.optimizer->step();
    ++arm.step;
    arm.lr = scheduledLr(config.optimizer, arm.base_lr, arm.stream.consumed(), budget,
                         data.trainSize());
    setLearningRate(*arm.optimizer, arm.lr);
    arm.train_seconds += std::chrono::duration<double>(Clock::now() - t0).count();

    rec.arm = arm.kind;
    rec.step = arm.step;
    rec.samples_seen = arm.stream.consumed();
    rec.wall_ms = msSince(start);
    rec.micro_batch = arm.micro_batch;
    rec.accum = static_cast<int64_t>(arm.accum == 1 ? 1 : plan.micro_batches.size());
    rec.window_samples = plan.samples;
    rec.loss = r.loss;
    rec.mb_loss_mean = r.mb_loss_mean;
    rec.mb_loss_var = r.mb_loss_var;
    rec.samples_per_s = static_cast<double>(arm.stream.consumed()) / std::max(1e-9, arm.train_seconds);
    rec.memory_bytes = memoryNow();
    if (r.has_noise) {
      rec.g_small_sq = r.g_small_sq;
      rec.g_big_sq = r.g_big_sq;
      rec.b_small = r.b_small;
      rec.b_big = r.b_big;
      const NoiseSample s = estimateNoise(r.b_small, r.g_small_sq, r.b_big, r.g_big_sq);
      rec.trace_sigma_est = s.trace_sigma;
      rec.g_sq_est = s.g_sq;
      arm.noise.add(s);
    }
    if (!arm.noise.empty()) {
      rec.trace_sigma_ema = arm.noise.traceSigma();
      rec.g_sq_ema = arm.noise.gSq();
      rec.b_simple = arm.noise.bSimple();
      rec.noise_per_update = arm.noise.noisePerUpdate(static_cast<double>(plan.samples));
      arm.last_b_simple = rec.b_simple;
      arm.last_noise_per_update = rec.noise_per_update;
    }
    arm.losses.add(r.loss);
    rec.loss_var_rolling = arm.losses.variance();
    if (arm.kind == ArmKind::kBigBatch) {
      Arm* accum = find(ArmKind::kAccum);
      if (accum && accum->step == arm.step && accum->stream.consumed() == arm.stream.consumed() &&
          accum->status != ArmStatus::kDiverged) {
        rec.weight_rel_diff = maxRelativeWeightDifference(accum->params, arm.params);
        arm.equivalence_rel_diff = rec.weight_rel_diff;
        accum->equivalence_rel_diff = rec.weight_rel_diff;
      }
    }
    sink->onStep(rec);
  }
  if (arm.stream.consumed() >= arm.next_eval) {
    evaluateArm(arm);
    while (arm.next_eval <= arm.stream.consumed()) arm.next_eval += eval_period;
  }
  if (arm.stream.consumed() >= budget) finishArm(arm, ArmStatus::kFinished, "");
}

ArmSummary Trainer::Impl::summarize(Arm& arm) {
  ArmSummary s;
  s.arm = arm.kind;
  s.status = arm.status;
  s.message = arm.message;
  s.micro_batch = arm.micro_batch;
  s.accum = arm.accum;
  s.steps = arm.step;
  s.samples_seen = arm.stream.consumed();
  s.final_train_loss = arm.losses.mean();
  s.loss_variance = arm.losses.variance();
  if (arm.last_eval) {
    s.val_loss = arm.last_eval->loss;
    s.val_accuracy = arm.last_eval->accuracy;
  }
  s.noise_per_update = arm.last_noise_per_update;
  s.b_simple = arm.last_b_simple;
  s.samples_per_s = arm.train_seconds > 0 ? static_cast<double>(arm.stream.consumed()) / arm.train_seconds : kNaN;
  s.peak_memory_bytes = peakMemory(device);
  s.equivalence_rel_diff = arm.equivalence_rel_diff;
  s.diverged_at_step = arm.diverged_at_step;
  s.wall_s = arm.train_seconds;
  return s;
}

RunSummary Trainer::run(MetricsSink& sink) {
  Impl& d = *impl_;
  d.sink = &sink;
  d.setUp();

  RunSummary summary;
  RunInfo& info = summary.info;
  info.config = d.config;
  info.device = describeDevice(d.device);
  info.dataset = d.data.describe();
  info.parameters = d.arms.front()->model->parameterCount();
  info.model = d.arms.front()->model->spec() + " (" + std::to_string(info.parameters) + " parameters)";
  info.train_samples = d.data.trainSize();
  info.val_samples = d.data.valSize();
  info.budget_samples = d.budget;
  info.class_names = d.data.class_names;
  d.start = Clock::now();
  sink.onRunStarted(info);

  while (Arm* arm = d.nextArm()) {
    d.applyControls(arm->stream.consumed());
    if (d.control.stopRequested()) {
      d.emitEvent("stop", "", "stopped by the user", arm->stream.consumed());
      for (auto& a : d.arms) {
        if (a->status == ArmStatus::kRunning) d.finishArm(*a, ArmStatus::kStopped, "stopped by the user");
      }
      break;
    }
    try {
      d.trainWindow(*arm);
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      std::string what = e.what();
      what = what.substr(0, what.find('\n'));
      if (isOutOfMemory(e)) {
        d.finishArm(*arm, ArmStatus::kFailed,
                    "out of memory with a micro-batch of " + std::to_string(arm->micro_batch) +
                        "; use a smaller micro-batch and a larger K to keep m·K = " +
                        std::to_string(arm->micro_batch * arm->accum));
      } else {
        d.finishArm(*arm, ArmStatus::kFailed, "training failed: " + what);
      }
      d.emitEvent("failed", toString(arm->kind), arm->message, arm->stream.consumed());
    }
  }
  for (auto& arm : d.arms) summary.arms.push_back(d.summarize(*arm));
  sink.onRunFinished(summary);
  return summary;
}

}  // namespace accumlab
