#include "accumlab/trainer.h"

#include <c10/core/DeviceGuard.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <future>
#include <optional>
#include <stdexcept>

#include "accumlab/device.h"
#include "accumlab/input_error.h"
#include "accumlab/torchscript_check.h"
#include "accumlab/variance_ratio.h"
#include "data/dataset_factory.h"
#include "stats/step_recorder.h"
#include "stats/weight_diff.h"
#include "train/arm_stepper.h"
#include "train/device_select.h"
#include "train/evaluator.h"
#include "train/memory_probe.h"
#include "train/trainer_control.h"
#include "train/arm_random.h"
#include "train/state_archive.h"
#include "train/variance_probe.h"
#include "train/worker_group.h"

namespace accumlab {

namespace {

constexpr char kTorchScriptPrefix[] = "torchscript:";  ///< a model SPEC of a user's file

// Memory is read from /proc at most this often.
constexpr double kMemoryPollMs = 200.0;

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string shapeText(c10::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string sizesText(int64_t m, int64_t k) {
  return "m·K = " + std::to_string(m * k) + " (m = " + std::to_string(m) +
         ", K = " + std::to_string(k) + ")";
}

/// FNV-1a over the bytes of every parameter, in order, as 16 hex digits.
std::string weightsDigest(const std::vector<torch::Tensor>& params) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const torch::Tensor& p : params) {
    const torch::Tensor t = p.detach().to(torch::kCPU).contiguous();
    const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
    const size_t n = static_cast<size_t>(t.numel()) * t.element_size();
    for (size_t i = 0; i < n; ++i) {
      h ^= bytes[i];
      h *= 0x100000001b3ULL;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

/// Samples trained between two variance probes, at least, per sample a probe runs forward.
constexpr int64_t kProbeSpacing = 2;

}  // namespace

/// One arm of the run: its stepper, its recorder and where it stands. Training thread only.
struct ArmRun {
  ArmRun(std::unique_ptr<ArmStepper> s, const ExperimentConfig& config)
      : stepper(std::move(s)), recorder(config.noise_ema, config.variance_window) {}

  std::unique_ptr<ArmStepper> stepper;
  StepRecorder recorder;
  ArmStatus status = ArmStatus::kRunning;
  std::string message;
  int64_t diverged_at_step = -1;
  int64_t next_eval = 0;  ///< samples seen at which the next evaluation is due
  std::optional<EvalRecord> last_eval;
  double equivalence_rel_diff = kNaN;
  int64_t parted_at_step = -1;  ///< accum and big-batch: see ArmSummary
  bool awaiting_change = false;  ///< a scheduled m/K change has not reached this arm yet
};

/// A change of m and K scheduled for every arm at one sample position.
struct SizeChange {
  int64_t m = 0;
  int64_t k = 0;
  int64_t at = 0;  ///< the first window boundary that every running arm reaches
};

struct Trainer::Impl {
  explicit Impl(ExperimentConfig c) : config(std::move(c)) {}

  ExperimentConfig config;
  TrainerControl control;
  bool ran = false;

  // Set up by run(), used by the training thread only.
  Dataset data;
  torch::Device device{torch::kCPU};
  torch::Dtype dtype = torch::kFloat32;
  std::vector<std::unique_ptr<ArmRun>> arms;
  int64_t budget = 0;
  int64_t eval_period = 0;
  int64_t probe_period = 0;  ///< 0: no variance probe
  int64_t next_probe = 0;    ///< samples seen by the probed arm at which the next is due
  std::optional<ProbeRecord> last_probe;
  int64_t probes = 0;
  std::vector<ProbeRecord> probe_log;  ///< every probe so far, for the pooled estimate
  // Checkpoints (Trainer::checkpointEvery, resumeFrom).
  int64_t checkpoint_every = 0;  ///< 0: none
  std::function<std::string()> checkpoint_path_of;
  std::string checkpoint_path;  ///< known from the first save (or the resumed file)
  int64_t next_checkpoint = 0;
  std::string resume_path;
  double resumed_after_ms = -1;
  int64_t m = 0;  ///< the experiment's current m (arms switch to it at `pending->at`)
  int64_t k = 0;
  std::optional<SizeChange> pending;
  Clock::time_point start;
  double last_memory_poll_ms = -1e9;
  int64_t last_memory = 0;
  MetricsSink* sink = nullptr;
  // Data-parallel runs (config.workers > 1).
  std::optional<WorkerGroupOptions> worker_options;
  std::unique_ptr<WorkerGroup> group;
  /// Rank 0 of a data-parallel run, or a run of one process: evaluates, probes and reports.
  bool leads() const { return !group || group->rank() == 0; }
  /// Joins the other ranks (config.workers > 1); the ranks past 0 keep only the accum arm.
  void joinGroup();

  /// Resolves the device and sets `device_guard` (the caller's, on the training thread) to it.
  void setUp(c10::OptionalDeviceGuard& device_guard);
  void checkModelFits(Model& model);
  void announceModel();
  ArmRun* nextArm();
  /// Pauses when asked; `at` is the samples seen by the arm about to train.
  void pauseIfRequested(int64_t at);
  void scheduleSizeChange();
  std::optional<int64_t> acceptedSize(std::optional<int64_t> requested, int64_t current,
                                      const char* what);
  void applyDueChange(ArmRun& arm);
  int64_t commonBoundary();
  void trainWindow(ArmRun& arm);
  void record(ArmRun& arm, StepRecord& rec);
  void finishArm(ArmRun& arm, ArmStatus status, const std::string& message);
  void evaluateArm(ArmRun& arm);
  ArmRun* probedArm();
  void probeArm(ArmRun& arm);
  void emitEvent(EventKind kind, std::optional<ArmKind> arm, const std::string& message,
                 int64_t samples);
  ArmRun* find(ArmKind kind);
  ArmSummary summarize(ArmRun& arm);
  int64_t memoryNow();
  void saveCheckpoint();
  void loadCheckpoint();
};

Trainer::Trainer(ExperimentConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Trainer::~Trainer() = default;

void Trainer::requestPause() { impl_->control.requestPause(); }
void Trainer::requestResume() { impl_->control.requestResume(); }
void Trainer::requestStop(const std::string& reason) { impl_->control.requestStop(reason); }
void Trainer::requestMicroBatch(int64_t m) { impl_->control.requestMicroBatch(m); }
void Trainer::requestAccum(int64_t k) { impl_->control.requestAccum(k); }
bool Trainer::isPaused() const { return impl_->control.paused(); }

void Trainer::checkpointEvery(int64_t samples, std::function<std::string()> path) {
  impl_->checkpoint_every = samples;
  impl_->checkpoint_path_of = std::move(path);
}

void Trainer::resumeFrom(const std::string& path) { impl_->resume_path = path; }

void Trainer::joinWorkers(WorkerGroupOptions options) { impl_->worker_options = std::move(options); }

void Trainer::Impl::joinGroup() {
  const int64_t n = config.workers;
  if (!worker_options) {
    throw InputError("this experiment trains on " + std::to_string(n) +
                     " workers: run it with `accumlab-cli run`, which starts them, or set workers to 1");
  }
  if (checkpoint_every > 0 || !resume_path.empty()) {
    throw InputError("checkpoints and resuming are not available for a run on " + std::to_string(n) + " workers");
  }
  if (device.is_cuda()) {
    throw InputError("data-parallel workers train on the CPU (Gloo's all-reduce); choose the cpu device");
  }
  group = std::make_unique<WorkerGroup>(*worker_options, static_cast<int>(n), configToJson(config, -1));
  if (group->rank() > 0) config.arms = {ArmKind::kAccum};
}

namespace {

constexpr char kCheckpointMark[] = "accumlab.trainer_checkpoint";

void putEval(torch::serialize::OutputArchive& a, const std::string& p, const std::optional<EvalRecord>& e) {
  putInt(a, p + ".has", e ? 1 : 0);
  if (!e) return;
  putInt(a, p + ".step", e->step);
  putInt(a, p + ".samples_seen", e->samples_seen);
  putDouble(a, p + ".wall_ms", e->wall_ms);
  putDouble(a, p + ".loss", e->loss);
  putDouble(a, p + ".accuracy", e->accuracy);
}

std::optional<EvalRecord> getEval(torch::serialize::InputArchive& a, const std::string& p,
                                  const std::string& path, ArmKind arm) {
  if (getInt(a, p + ".has", path) == 0) return std::nullopt;
  EvalRecord e;
  e.arm = arm;
  e.step = getInt(a, p + ".step", path);
  e.samples_seen = getInt(a, p + ".samples_seen", path);
  e.wall_ms = getDouble(a, p + ".wall_ms", path);
  e.loss = getDouble(a, p + ".loss", path);
  e.accuracy = getDouble(a, p + ".accuracy", path);
  return e;
}

void putProbe(torch::serialize::OutputArchive& a, const std::string& p, const std::optional<ProbeRecord>& r) {
  putInt(a, p + ".has", r ? 1 : 0);
  if (!r) return;
  putInt(a, p + ".arm", static_cast<int64_t>(r->arm));
  for (const auto& [key, v] : {std::pair<const char*, int64_t>{"step", r->step}, {"samples_seen", r->samples_seen},
                               {"micro_batch", r->micro_batch}, {"accum", r->accum}, {"repeats", r->repeats},
                               {"batch_dependent", r->batch_dependent ? 1 : 0}}) {
    putInt(a, p + "." + key, v);
  }
  for (const auto& [key, v] : {std::pair<const char*, double>{"wall_ms", r->wall_ms}, {"var_micro", r->var_micro},
                               {"var_window", r->var_window}, {"ratio", r->ratio}, {"ci_low", r->ci_low},
                               {"ci_high", r->ci_high}, {"theory", r->theory}}) {
    putDouble(a, p + "." + key, v);
  }
}

std::optional<ProbeRecord> getProbe(torch::serialize::InputArchive& a, const std::string& p,
                                    const std::string& path) {
  if (getInt(a, p + ".has", path) == 0) return std::nullopt;
  ProbeRecord r;
  r.arm = static_cast<ArmKind>(getInt(a, p + ".arm", path));
  r.step = getInt(a, p + ".step", path);
  r.samples_seen = getInt(a, p + ".samples_seen", path);
  r.micro_batch = getInt(a, p + ".micro_batch", path);
  r.accum = getInt(a, p + ".accum", path);
  r.repeats = getInt(a, p + ".repeats", path);
  r.batch_dependent = getInt(a, p + ".batch_dependent", path) != 0;
  r.wall_ms = getDouble(a, p + ".wall_ms", path);
  r.var_micro = getDouble(a, p + ".var_micro", path);
  r.var_window = getDouble(a, p + ".var_window", path);
  r.ratio = getDouble(a, p + ".ratio", path);
  r.ci_low = getDouble(a, p + ".ci_low", path);
  r.ci_high = getDouble(a, p + ".ci_high", path);
  r.theory = getDouble(a, p + ".theory", path);
  return r;
}

}  // namespace

void Trainer::Impl::saveCheckpoint() {
  // Every record so far is durable before the checkpoint that follows it exists.
  sink->flush();
  if (checkpoint_path.empty()) checkpoint_path = checkpoint_path_of ? checkpoint_path_of() : "";
  if (checkpoint_path.empty()) return;
  torch::serialize::OutputArchive a;
  putText(a, kCheckpointMark, "1");
  putText(a, "config", configToJson(config));
  putInt(a, "every", checkpoint_every);
  putInt(a, "next_checkpoint", next_checkpoint);
  putDouble(a, "elapsed_ms", msSince(start));
  putInt(a, "m", m);
  putInt(a, "k", k);
  putInt(a, "pending.has", pending ? 1 : 0);
  putInt(a, "pending.m", pending ? pending->m : 0);
  putInt(a, "pending.k", pending ? pending->k : 0);
  putInt(a, "pending.at", pending ? pending->at : 0);
  putInt(a, "next_probe", next_probe);
  putInt(a, "probes", probes);
  putProbe(a, "last_probe", last_probe);
  putInt(a, "probe_log.count", static_cast<int64_t>(probe_log.size()));
  for (size_t i = 0; i < probe_log.size(); ++i) {
    putProbe(a, "probe_log." + std::to_string(i), probe_log[i]);
  }
  putInt(a, "arms", static_cast<int64_t>(arms.size()));
  for (size_t i = 0; i < arms.size(); ++i) {
    ArmRun& arm = *arms[i];
    const std::string p = "arm" + std::to_string(i);
    arm.stepper->save(a, p);
    putInt(a, p + ".status", static_cast<int64_t>(arm.status));
    putText(a, p + ".message", arm.message);
    putInt(a, p + ".diverged_at_step", arm.diverged_at_step);
    putInt(a, p + ".next_eval", arm.next_eval);
    putEval(a, p + ".last_eval", arm.last_eval);
    putDouble(a, p + ".equivalence_rel_diff", arm.equivalence_rel_diff);
    putInt(a, p + ".parted_at_step", arm.parted_at_step);
    putInt(a, p + ".awaiting_change", arm.awaiting_change ? 1 : 0);
    NoiseTracker& noise = arm.recorder.noise();
    putDouble(a, p + ".noise.trace", noise.traceEma().raw());
    putInt(a, p + ".noise.trace_n", noise.traceEma().count());
    putDouble(a, p + ".noise.g_sq", noise.gSqEma().raw());
    putInt(a, p + ".noise.g_sq_n", noise.gSqEma().count());
    putValues(a, p + ".losses", arm.recorder.losses().values());
  }
  // Written aside and renamed: a kill while saving leaves the previous checkpoint whole.
  const std::string aside = checkpoint_path + ".partial";
  try {
    a.save_to(aside);
  } catch (const std::exception& e) {
    throw InputError("cannot write the checkpoint " + checkpoint_path + " (" +
                     std::string(e.what()).substr(0, std::string(e.what()).find('\n')) + ")");
  }
  if (std::rename(aside.c_str(), checkpoint_path.c_str()) != 0) {
    throw InputError("cannot write the checkpoint " + checkpoint_path + " (" + std::strerror(errno) + ")");
  }
}

void Trainer::Impl::loadCheckpoint() {
  const std::string& path = resume_path;
  torch::serialize::InputArchive a;
  try {
    a.load_from(path);
  } catch (const std::exception&) {
    throw InputError("checkpoint " + path + " cannot be read: it is missing or damaged");
  }
  if (getText(a, kCheckpointMark, path) != "1") {
    throw InputError(path + " is not a checkpoint of this version of AccumLab");
  }
  if (getText(a, "config", path) != configToJson(config)) {
    throw InputError("checkpoint " + path + " belongs to another experiment (its config differs)");
  }
  if (getInt(a, "arms", path) != static_cast<int64_t>(arms.size())) {
    throw InputError("checkpoint " + path + " holds other arms than this experiment");
  }
  if (checkpoint_every == 0) {
    checkpoint_every = getInt(a, "every", path);
    checkpoint_path = path;
  }
  next_checkpoint = getInt(a, "next_checkpoint", path);
  resumed_after_ms = getDouble(a, "elapsed_ms", path);
  m = getInt(a, "m", path);
  k = getInt(a, "k", path);
  pending.reset();
  if (getInt(a, "pending.has", path) != 0) {
    pending = SizeChange{getInt(a, "pending.m", path), getInt(a, "pending.k", path),
                         getInt(a, "pending.at", path)};
  }
  next_probe = getInt(a, "next_probe", path);
  probes = getInt(a, "probes", path);
  last_probe = getProbe(a, "last_probe", path);
  probe_log.clear();
  c10::IValue logged;
  if (a.try_read("probe_log.count", logged) && logged.isInt()) {
    for (int64_t i = 0; i < logged.toInt(); ++i) {
      if (auto p = getProbe(a, "probe_log." + std::to_string(i), path)) probe_log.push_back(*p);
    }
  } else if (last_probe) {
    probe_log.push_back(*last_probe);  // a checkpoint from before probes were pooled
  }
  for (size_t i = 0; i < arms.size(); ++i) {
    ArmRun& arm = *arms[i];
    const std::string p = "arm" + std::to_string(i);
    arm.stepper->load(a, p, path);
    arm.status = static_cast<ArmStatus>(getInt(a, p + ".status", path));
    arm.message = getText(a, p + ".message", path);
    arm.diverged_at_step = getInt(a, p + ".diverged_at_step", path);
    arm.next_eval = getInt(a, p + ".next_eval", path);
    arm.last_eval = getEval(a, p + ".last_eval", path, arm.stepper->kind());
    arm.equivalence_rel_diff = getDouble(a, p + ".equivalence_rel_diff", path);
    arm.parted_at_step = getInt(a, p + ".parted_at_step", path);
    arm.awaiting_change = getInt(a, p + ".awaiting_change", path) != 0;
    NoiseTracker& noise = arm.recorder.noise();
    noise.traceEma().restore(getDouble(a, p + ".noise.trace", path), getInt(a, p + ".noise.trace_n", path));
    noise.gSqEma().restore(getDouble(a, p + ".noise.g_sq", path), getInt(a, p + ".noise.g_sq_n", path));
    arm.recorder.losses().restore(getValues(a, p + ".losses", path));
  }
}

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

void Trainer::Impl::setUp(c10::OptionalDeviceGuard& device_guard) {
  validateConfig(config);
  std::sort(config.arms.begin(), config.arms.end());  // canonical order: ties go to accum first
  configureThreads(config.threads);
  // Data-parallel workers all-reduce with Gloo, on the CPU.
  device = config.workers > 1 && config.device == "auto" ? torch::Device(torch::kCPU)
                                                          : resolveDevice(config.device);
  if (device.is_cuda()) {
    // The training thread's kernels, streams and temporaries go to the run's GPU, whichever
    // device the thread had current (cuda:1 on a thread that starts on cuda:0).
    device_guard.reset_device(device);
    useFullFloat32OnCuda();
  }
  dtype = config.dtype == DType::kFloat64 ? torch::kFloat64 : torch::kFloat32;
  // A user's TorchScript file is loaded first in a child process (checkModelInChild); that
  // child starts LibTorch anew (~0.6 s), so it runs while the data loads. The factory below
  // then finds the file checked.
  std::future<void> model_checked;
  if (config.model.rfind(kTorchScriptPrefix, 0) == 0) {
    model_checked = std::async(std::launch::async, checkModelInChild,
                               config.model.substr(std::string(kTorchScriptPrefix).size()));
  }
  // The ranks meet before loading their data, so that they load it at the same time.
  if (config.workers > 1) joinGroup();
  data = loadDataset(config);
  if (model_checked.valid()) model_checked.get();  // throws its InputError
  if (data.trainSize() < 1) throw InputError("dataset '" + config.data + "' has no training samples");
  m = config.micro_batch;
  k = config.accum;
  if (config.window_policy == WindowPolicy::kDrop && m * k * config.workers > data.trainSize()) {
    throw InputError("window policy drop would discard every window: " + sizesText(m, k) +
                     (config.workers > 1 ? " times " + std::to_string(config.workers) + " workers" : "") +
                     " is more than the " + std::to_string(data.trainSize()) +
                     " training samples of dataset '" + config.data +
                     "'; lower m or K, or choose the stream or flush-exact policy");
  }
  budget = config.samples > 0
               ? config.samples
               : static_cast<int64_t>(std::ceil(config.epochs * static_cast<double>(data.trainSize())));
  eval_period = config.eval_every > 0 ? config.eval_every : data.trainSize();
  probe_period = config.probe_repeats < 2 || !leads() ? 0
                 : config.probe_every > 0 ? config.probe_every
                                          : eval_period;
  next_probe = probe_period;

  auto factory = makeModelFactory(config.model, data.sample_shape, data.num_outputs, config.seed);
  for (ArmKind kind : config.arms) {
    // The arm's model, stepper and optimizer are its tensors (its peaks count them).
    auto memory = std::make_unique<ArmMemory>(device, config.memory_budget);
    const auto charge = memory->charge();
    auto model = factory->create();
    model->to(device, dtype);
    if (!arms.empty()) model->copyStateFrom(arms.front()->stepper->model());
    checkModelFits(*model);
    auto stepper = std::make_unique<ArmStepper>(kind, std::move(model), data, config, device,
                                                dtype, budget, std::move(memory));
    if (group && kind == ArmKind::kAccum) stepper->shareWith(*group);
    arms.push_back(std::make_unique<ArmRun>(std::move(stepper), config));
    arms.back()->next_eval = eval_period;
  }
}

void Trainer::Impl::announceModel() {
  // Said once at the start, so that a gap between accum and big-batch is not read as a
  // failure of accumulation.
  Model& model = arms.front()->stepper->model();
  const bool paired = find(ArmKind::kAccum) && find(ArmKind::kBigBatch);
  if (group) {
    const int64_t n = config.workers;
    emitEvent(EventKind::kWorkers, ArmKind::kAccum,
              std::to_string(n) + " workers share each window of m·K·N = " + std::to_string(m) + "·" +
                  std::to_string(k) + "·" + std::to_string(n) + " = " + std::to_string(m * k * n) +
                  " samples: each accumulates its K micro-batches, then one all-reduce per window",
              0);
  }
  if (model.batchDependent()) {
    emitEvent(EventKind::kModel, std::nullopt,
              "model '" + model.spec() + "' normalises over its batch (BatchNorm)" +
                  (paired ? ": accum normalises each micro-batch of m, big-batch the whole "
                            "m·K, so they train different models and are not expected to match"
                          : ""),
              0);
  }
  if (model.stochastic()) {
    emitEvent(EventKind::kModel, std::nullopt,
              "model '" + model.spec() + "' has random layers (dropout)" +
                  (paired ? ": every arm draws its own random masks from the seed, so accum and "
                            "big-batch may differ by their masks, not by accumulation"
                          : ": every arm draws its own random masks from the seed"),
              0);
  }
}

ArmRun* Trainer::Impl::find(ArmKind kind) {
  for (auto& arm : arms) {
    if (arm->stepper->kind() == kind) return arm.get();
  }
  return nullptr;
}

ArmRun* Trainer::Impl::nextArm() {
  // The sample clock: the arm furthest behind goes next, ties in arm order.
  ArmRun* best = nullptr;
  for (auto& arm : arms) {
    if (arm->status != ArmStatus::kRunning) continue;
    if (!best || arm->stepper->samplesSeen() < best->stepper->samplesSeen()) best = arm.get();
  }
  return best;
}

void Trainer::Impl::emitEvent(EventKind kind, std::optional<ArmKind> arm,
                              const std::string& message, int64_t samples) {
  EventRecord e;
  e.samples_seen = samples;
  e.wall_ms = msSince(start);
  e.kind = kind;
  e.arm = arm;
  e.message = message;
  sink->onEvent(e);
}

void Trainer::Impl::pauseIfRequested(int64_t at) {
  if (!control.paused() || control.stopRequested()) return;
  if (group) {
    control.requestResume();
    emitEvent(EventKind::kRejected, std::nullopt,
              "pause ignored: the other workers would wait on this one until they time out; "
              "stop the run instead",
              at);
    return;
  }
  emitEvent(EventKind::kPause, std::nullopt, "paused at " + std::to_string(at) + " samples", at);
  const auto paused_at = Clock::now();
  control.waitWhilePaused();
  emitEvent(EventKind::kResume, std::nullopt,
            "resumed after " + std::to_string(static_cast<int64_t>(msSince(paused_at))) + " ms",
            at);
}

std::optional<int64_t> Trainer::Impl::acceptedSize(std::optional<int64_t> requested,
                                                   int64_t current, const char* what) {
  if (!requested || *requested == current) return std::nullopt;
  if (*requested < 1) {
    emitEvent(EventKind::kRejected, std::nullopt,
              std::string(what) + " " + std::to_string(*requested) + " ignored: must be ≥ 1",
              nextArm()->stepper->samplesSeen());
    return std::nullopt;
  }
  return requested;
}

int64_t Trainer::Impl::commonBoundary() {
  // Every arm's windows are m·K or m long and restart at the same epoch ends, so their
  // boundaries nest; iterate to the first position that is a boundary of all of them.
  int64_t at = 0;
  for (auto& arm : arms) {
    if (arm->status == ArmStatus::kRunning) at = std::max(at, arm->stepper->samplesSeen());
  }
  for (;;) {
    int64_t next = at;
    for (auto& arm : arms) {
      if (arm->status == ArmStatus::kRunning) {
        next = std::max(next, arm->stepper->boundaryAtOrAfter(at));
      }
    }
    if (next == at) return at;
    at = next;
  }
}

void Trainer::Impl::scheduleSizeChange() {
  if (pending) return;  // later requests wait in the queue until this change has landed
  const auto new_m = acceptedSize(control.takeMicroBatch(), m, "micro-batch");
  const auto new_k = acceptedSize(control.takeAccum(), k, "K");
  if (!new_m && !new_k) return;
  if (group) {
    emitEvent(EventKind::kRejected, std::nullopt,
              "change of m or K ignored: the " + std::to_string(config.workers) +
                  " workers would all have to change at the same window; start a new run",
              nextArm()->stepper->samplesSeen());
    return;
  }
  SizeChange change{new_m.value_or(m), new_k.value_or(k), 0};
  if (config.window_policy == WindowPolicy::kDrop && change.m * change.k > data.trainSize()) {
    emitEvent(EventKind::kRejected, std::nullopt,
              "change to " + sizesText(change.m, change.k) + " ignored: policy drop would "
              "discard every window of the " + std::to_string(data.trainSize()) +
              " training samples; choose a smaller m or K",
              nextArm()->stepper->samplesSeen());
    return;
  }
  change.at = commonBoundary();
  const std::string where =
      " for all arms at sample " + std::to_string(change.at) + " (optimizer state kept)";
  if (new_m) {
    emitEvent(EventKind::kMicroBatch, std::nullopt,
              "micro-batch " + std::to_string(m) + " → " + std::to_string(change.m) + where,
              change.at);
  }
  if (new_k) {
    emitEvent(EventKind::kAccum, std::nullopt, "K " + std::to_string(k) + " → " + std::to_string(change.k) + where,
              change.at);
  }
  for (auto& arm : arms) arm->awaiting_change = arm->status == ArmStatus::kRunning;
  pending = change;
}

void Trainer::Impl::applyDueChange(ArmRun& arm) {
  if (!pending || !arm.awaiting_change || arm.stepper->samplesSeen() < pending->at) return;
  arm.stepper->setSizes(pending->m, pending->k);
  arm.awaiting_change = false;
  for (auto& a : arms) {
    if (a->status == ArmStatus::kRunning && a->awaiting_change) return;
  }
  m = pending->m;
  k = pending->k;
  pending.reset();
}

int64_t Trainer::Impl::memoryNow() {
  const double now = msSince(start);
  if (now - last_memory_poll_ms >= kMemoryPollMs) {
    last_memory = memoryInUse(device);
    last_memory_poll_ms = now;
  }
  return last_memory;
}

void Trainer::Impl::finishArm(ArmRun& arm, ArmStatus status, const std::string& message) {
  arm.status = status;
  arm.message = message;
  if (status == ArmStatus::kFinished || status == ArmStatus::kStopped) {
    if (!arm.last_eval || arm.last_eval->step != arm.stepper->steps()) evaluateArm(arm);
  }
  sink->onArmFinished(summarize(arm));
}

void Trainer::Impl::evaluateArm(ArmRun& arm) {
  if (data.valSize() == 0 || !leads()) return;
  const EvalResult r = evaluate(arm.stepper->model(), data, device, dtype);
  EvalRecord e;
  e.arm = arm.stepper->kind();
  e.step = arm.stepper->steps();
  e.samples_seen = arm.stepper->samplesSeen();
  e.wall_ms = msSince(start);
  e.loss = r.loss;
  e.accuracy = r.accuracy;
  arm.last_eval = e;
  sink->onEval(e);
}

ArmRun* Trainer::Impl::probedArm() {
  // The accum arm's weights are the ones the lesson is about; without it, the first arm's.
  if (ArmRun* accum = find(ArmKind::kAccum)) return accum;
  return arms.front().get();
}

void Trainer::Impl::probeArm(ArmRun& arm) {
  const int64_t at = arm.stepper->samplesSeen();
  // Dropout draws from the default generators, which every arm reseeds before its next
  // window; seeding them here too makes the probe itself reproducible.
  if (arm.stepper->model().stochastic()) ArmRandom(config.seed ^ 0x70726F6265ULL, device).seedWindow(at);
  ProbeRequest request;
  request.micro_batch = m;
  request.accum = k * config.workers;
  request.repeats = config.probe_repeats;
  request.seed = config.seed ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(at + 1));
  ProbeRecord rec = probeVariance(arm.stepper->model(), data, request, device, dtype);
  rec.arm = arm.stepper->kind();
  rec.step = arm.stepper->steps();
  rec.samples_seen = at;
  rec.wall_ms = msSince(start);
  last_probe = rec;
  probe_log.push_back(rec);
  ++probes;
  sink->onProbe(rec);
}

void Trainer::Impl::record(ArmRun& arm, StepRecord& rec) {
  rec.wall_ms = msSince(start);
  rec.memory_bytes = memoryNow();
  arm.recorder.complete(rec);
  if (rec.arm == ArmKind::kBigBatch) {
    // Big-batch trails accum in the sample clock, so the pair is level after its step.
    ArmRun* accum = find(ArmKind::kAccum);
    if (accum && accum->stepper->steps() == rec.step &&
        accum->stepper->samplesSeen() == rec.samples_seen &&
        accum->status != ArmStatus::kDiverged) {
      rec.weight_rel_diff =
          maxRelativeWeightDifference(accum->stepper->parameters(), arm.stepper->parameters());
      arm.equivalence_rel_diff = rec.weight_rel_diff;
      accum->equivalence_rel_diff = rec.weight_rel_diff;
      if (arm.parted_at_step < 0 && rec.weight_rel_diff > roundingLevel(config.dtype)) {
        arm.parted_at_step = rec.step;
        accum->parted_at_step = rec.step;
      }
    }
  }
  sink->onStep(rec);
}

void Trainer::Impl::trainWindow(ArmRun& arm) {
  ArmStepper& stepper = *arm.stepper;
  if (stepper.samplesLeft() <= 0) {
    finishArm(arm, ArmStatus::kFinished, "");
    return;
  }
  WindowOutcome out = stepper.step();
  const ArmKind name = stepper.kind();
  switch (out.end) {
    case WindowEnd::kDropped:
      emitEvent(EventKind::kDropped, name,
                "dropped a partial window of " + std::to_string(out.dropped_samples) +
                    " samples at the epoch end (policy drop)",
                stepper.samplesSeen());
      break;
    case WindowEnd::kDiverged:
      arm.diverged_at_step = stepper.steps() + 1;
      emitEvent(EventKind::kDiverged, name, out.message, stepper.samplesSeen());
      finishArm(arm, ArmStatus::kDiverged, out.message);
      return;
    case WindowEnd::kOutOfMemory:
      finishArm(arm, ArmStatus::kFailed, out.message);
      emitEvent(EventKind::kFailed, name, out.message, stepper.samplesSeen());
      return;
    case WindowEnd::kStepped:
      if (!out.split_message.empty()) {
        emitEvent(EventKind::kOutOfMemory, name, out.split_message, stepper.samplesSeen());
      }
      record(arm, out.record);
      break;
  }
  if (stepper.samplesSeen() >= arm.next_eval) {
    evaluateArm(arm);
    while (arm.next_eval <= stepper.samplesSeen()) arm.next_eval += eval_period;
  }
  if (probe_period > 0 && &arm == probedArm() && stepper.samplesSeen() >= next_probe) {
    probeArm(arm);
    // A probe runs its pool forward (R·m·(K+1) samples for a batch-dependent model). Training
    // at least twice that many samples before the next one keeps its cost a small part of the
    // run (a forward pass is about a third of a training step) even for large pools or m·K,
    // where a fixed interval would make probing dominate.
    ProbeRequest request;
    request.micro_batch = m;
    request.accum = k * config.workers;
    request.repeats = config.probe_repeats;
    const int64_t cost =
        probeForwardSamples(request, stepper.model().batchDependent(), data.trainSize());
    const int64_t gap = std::max(probe_period, kProbeSpacing * cost);
    while (next_probe <= stepper.samplesSeen()) next_probe += gap;
  }
  if (stepper.samplesLeft() <= 0) finishArm(arm, ArmStatus::kFinished, "");
}

ArmSummary Trainer::Impl::summarize(ArmRun& arm) {
  const ArmStepper& stepper = *arm.stepper;
  ArmSummary s;
  s.arm = stepper.kind();
  s.status = arm.status;
  s.message = arm.message;
  s.micro_batch = stepper.microBatch();
  s.accum = stepper.accum();
  s.memory_piece = stepper.pieceCap();
  s.steps = stepper.steps();
  s.samples_seen = stepper.samplesSeen();
  s.final_train_loss = arm.recorder.lossMean();
  s.loss_variance = arm.recorder.lossVariance();
  s.loss_variance_detrended = arm.recorder.lossDetrendedVariance();
  s.loss_variance_count = arm.recorder.lossCount();
  if (arm.last_eval) {
    s.val_loss = arm.last_eval->loss;
    s.val_accuracy = arm.last_eval->accuracy;
  }
  s.noise_per_update = arm.recorder.noisePerUpdate(stepper.effectiveBatch());
  s.b_simple = arm.recorder.bSimple();
  s.samples_per_s = stepper.trainSeconds() > 0
                        ? static_cast<double>(stepper.samplesSeen()) / stepper.trainSeconds()
                        : kNaN;
  s.peak_memory_bytes = peakMemory(device);
  s.peak_tensor_bytes = stepper.peakTensorBytes();
  s.equivalence_rel_diff = arm.equivalence_rel_diff;
  s.trajectories_parted_at_step = arm.parted_at_step;
  setGradChecks(s, stepper.gradChecks());
  s.diverged_at_step = arm.diverged_at_step;
  s.wall_s = stepper.trainSeconds();
  s.batch_dependent = arm.stepper->model().batchDependent();
  s.stochastic = arm.stepper->model().stochastic();
  s.weights_digest = weightsDigest(stepper.parameters());
  s.allreduce_s = stepper.allReduceSeconds();
  return s;
}

RunSummary Trainer::run(MetricsSink& sink) {
  Impl& d = *impl_;
  if (d.ran) {
    throw std::logic_error("Trainer::run() trains once; make a new Trainer for another run");
  }
  d.ran = true;
  d.sink = &sink;
  c10::OptionalDeviceGuard device_guard;  // this thread's CUDA device for the run, if any
  d.setUp(device_guard);

  RunSummary summary;
  RunInfo& info = summary.info;
  info.config = d.config;
  info.device = describeDevice(d.device);
  info.dataset = d.data.describe();
  Model& model = d.arms.front()->stepper->model();
  info.parameters = model.parameterCount();
  info.model = model.spec() + " (" + std::to_string(info.parameters) + " parameters)";
  info.train_samples = d.data.trainSize();
  info.val_samples = d.data.valSize();
  info.budget_samples = d.budget;
  info.class_names = d.data.class_names;
  d.start = Clock::now();
  if (!d.resume_path.empty()) {
    d.loadCheckpoint();
    // The clock goes on from the checkpoint, so the records stay in order.
    d.start = Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double, std::milli>(d.resumed_after_ms));
    info.resumed_after_ms = d.resumed_after_ms;
  } else {
    d.next_checkpoint = d.checkpoint_every;
  }
  sink.onRunStarted(info);
  if (d.resume_path.empty()) {
    d.announceModel();
  } else {
    const ArmRun* behind = d.nextArm();
    d.emitEvent(EventKind::kResumed, std::nullopt,
                "resumed from the checkpoint at " +
                    std::to_string(behind ? behind->stepper->samplesSeen() : 0) + " samples",
                behind ? behind->stepper->samplesSeen() : 0);
  }

  while (ArmRun* arm = d.nextArm()) {
    const int64_t at = arm->stepper->samplesSeen();
    if (d.checkpoint_every > 0 && at >= d.next_checkpoint) {
      while (d.next_checkpoint <= at) d.next_checkpoint += d.checkpoint_every;
      d.saveCheckpoint();
    }
    d.pauseIfRequested(at);
    // A data-parallel stop travels with the accum arm's next all-reduce, so that every rank
    // stops after the same window.
    const bool agreed = d.group && d.group->stopAgreed();
    const ArmRun* shared = d.group ? d.find(ArmKind::kAccum) : nullptr;
    if (d.control.stopRequested() && shared && shared->status == ArmStatus::kRunning && !agreed) {
      d.group->wantStop();
    } else if (d.control.stopRequested() || agreed) {
      const std::string reason = d.control.stopRequested() ? d.control.stopReason()
                                                           : "stopped because another worker was stopped";
      d.emitEvent(EventKind::kStop, std::nullopt, reason, at);
      for (auto& a : d.arms) {
        if (a->status == ArmStatus::kRunning) d.finishArm(*a, ArmStatus::kStopped, reason);
      }
      break;
    }
    d.scheduleSizeChange();
    d.applyDueChange(*arm);
    try {
      d.trainWindow(*arm);
    } catch (const InputError&) {
      throw;
    } catch (const WorkerLost& e) {
      // The run cannot go on without the lost worker: the arms of this rank stop with it.
      d.finishArm(*arm, ArmStatus::kFailed, e.what());
      d.emitEvent(EventKind::kFailed, arm->stepper->kind(), e.what(), arm->stepper->samplesSeen());
      for (auto& a : d.arms) {
        if (a->status == ArmStatus::kRunning) {
          d.finishArm(*a, ArmStatus::kStopped, std::string("stopped: ") + e.what());
        }
      }
    } catch (const std::exception& e) {
      std::string what = e.what();
      what = what.substr(0, what.find('\n'));
      const ArmStepper& stepper = *arm->stepper;
      if (isOutOfMemory(e)) {
        d.finishArm(*arm, ArmStatus::kFailed,
                    "out of memory with a micro-batch of " + std::to_string(stepper.microBatch()) +
                        "; use a smaller micro-batch and a larger K to keep m·K = " +
                        std::to_string(stepper.effectiveBatch()));
      } else {
        d.finishArm(*arm, ArmStatus::kFailed, "training failed: " + what);
      }
      d.emitEvent(EventKind::kFailed, stepper.kind(), arm->message, stepper.samplesSeen());
    }
  }
  for (auto& arm : d.arms) summary.arms.push_back(d.summarize(*arm));
  summary.variance_probe = d.last_probe;
  summary.variance_probes = d.probes;
  summary.variance_probe_pooled = poolProbes(d.probe_log);
  sink.onRunFinished(summary);
  // The run has ended: there is nothing left to resume.
  if (!d.checkpoint_path.empty()) std::remove(d.checkpoint_path.c_str());
  return summary;
}

}  // namespace accumlab
