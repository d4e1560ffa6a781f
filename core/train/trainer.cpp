// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/trainer.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "accumlab/device.h"
#include "accumlab/input_error.h"
#include "accumlab/training_rules.h"
#include "accumlab/variance_ratio.h"
#include "data/dataset_factory.h"
#include "memory/memory_probe.h"
#include "stats/weight_diff.h"
#include "train/device_select.h"
#include "train/evaluator.h"
#include "train/kept_weights.h"
#include "train/layer_ceiling.h"
#include "train/model_fit.h"
#include "train/trainer_impl.h"

// Trainer sets up the arms and controls the run (pause, stop, mid-run changes, evaluations,
// probes, checkpoints due). Each arm is an ArmRun, their order on the sample clock and their
// sizes are ArmSchedule's, rounds of arms at once RoundRunner's, the checkpoint
// RunCheckpoint's (ARCHITECTURE.md).
namespace accumlab {

constexpr double kMemoryPollMs = 200.0;  ///< memory is read from /proc at most this often

Trainer::Trainer(ExperimentConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Trainer::~Trainer() = default;

void Trainer::requestPause() { impl_->control.requestPause(); }
void Trainer::requestResume() { impl_->control.requestResume(); }
void Trainer::requestStop(const std::string& reason) { impl_->control.requestStop(reason); }
void Trainer::requestMicroBatch(int64_t m) { impl_->control.requestMicroBatch(m); }
void Trainer::requestAccum(int64_t k) { impl_->control.requestAccum(k); }
bool Trainer::isPaused() const { return impl_->control.paused(); }

void Trainer::checkpointEvery(int64_t samples, std::function<std::string()> path) {
  impl_->checkpoint.every(samples, std::move(path));
}

void Trainer::resumeFrom(const std::string& path) { impl_->checkpoint.resumeFrom(path); }

void Trainer::joinWorkers(WorkerGroupOptions options) {
  impl_->worker_options = std::move(options);
}

void Trainer::Impl::joinGroup() {
  const int64_t n = config.workers;
  if (!worker_options) {
    throw InputError(
        "this experiment trains on " + std::to_string(n) +
        " workers: run it with `accumlab-cli run`, which starts them, or set workers to 1");
  }
  if (checkpoint.saves() || checkpoint.resuming()) {
    throw InputError("checkpoints and resuming are not available for a run on " +
                     std::to_string(n) + " workers");
  }
  if (device.is_cuda()) {
    throw InputError(
        "data-parallel workers train on the CPU (Gloo's all-reduce); choose the cpu device");
  }
  group =
      std::make_unique<WorkerGroup>(*worker_options, static_cast<int>(n), configToJson(config, -1));
  if (group->rank() > 0) config.arms = {ArmKind::kAccum};
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
  // The ranks meet before loading their data, so that they load it at the same time.
  if (config.workers > 1) joinGroup();
  // A stop (Ctrl-C, SIGTERM, the app's Stop) ends even a long read at once: ReadStopped.
  data = loadDataset(config, nullptr, ReadStop(&control.stopFlag()));
  if (data.trainSize() < 1)
    throw InputError("dataset '" + config.data + "' has no training samples");
  const int64_t m = config.micro_batch;
  const int64_t k = config.accum;
  schedule.setSizes(m, k);
  if (config.window_policy == WindowPolicy::kDrop && m * k * config.workers > data.trainSize()) {
    throw InputError(
        "window policy drop would discard every window: " + sizesText(m, k) +
        (config.workers > 1 ? " times " + std::to_string(config.workers) + " workers" : "") +
        " is more than the " + std::to_string(data.trainSize()) + " training samples of dataset '" +
        config.data + "'; lower m or K, or choose the stream or flush-exact policy");
  }
  budget =
      config.samples > 0
          ? config.samples
          : static_cast<int64_t>(std::ceil(config.epochs * static_cast<double>(data.trainSize())));
  eval_period = config.eval_every > 0 ? config.eval_every : data.trainSize();
  probes.start(!probesVariance(config) || !leads() ? 0
               : config.probe_every > 0            ? config.probe_every
                                                   : eval_period);

  // A user's TorchScript file is checked first in a child process, with a forward pass of a
  // sample of this data's shape (checkModelInChild), before it loads here.
  auto factory = makeModelFactory(config.model, data.sample_shape, data.num_outputs, config.seed,
                                  data.isText());
  for (ArmKind kind : config.arms) {
    // The arm's model, stepper and optimizer are its tensors (its peaks count them).
    auto memory = std::make_unique<ArmMemory>(device, config.memory_budget);
    const auto charge = memory->charge();
    auto model = factory->create();
    model->to(device, dtype);
    if (!schedule.arms().empty()) model->copyStateFrom(schedule.arms().front()->stepper->model());
    checkModelFits(*model, data, dtype, device);
    auto stepper = std::make_unique<ArmStepper>(kind, std::move(model), data, config, device, dtype,
                                                budget, std::move(memory));
    if (group && kind == ArmKind::kAccum) stepper->shareWith(*group);
    auto arm = std::make_unique<ArmRun>(std::move(stepper), config);
    arm->next_eval = eval_period;
    schedule.add(std::move(arm));
  }
}

void Trainer::Impl::announceModel() {
  // Said once at the start, so that a gap between accum and big-batch is not read as a
  // failure of accumulation.
  Model& model = schedule.arms().front()->stepper->model();
  const int64_t m = schedule.m();
  const int64_t k = schedule.k();
  const bool paired = schedule.find(ArmKind::kAccum) && schedule.find(ArmKind::kBigBatch);
  if (group) {
    const int64_t n = config.workers;
    emitEvent(EventKind::kWorkers, ArmKind::kAccum,
              std::to_string(n) + " workers share each window of m·K·N = " + std::to_string(m) +
                  "·" + std::to_string(k) + "·" + std::to_string(n) + " = " +
                  std::to_string(m * k * n) +
                  " samples: each accumulates its K micro-batches, then one all-reduce per window",
              0);
  }
  for (const std::string& caveat : modelCaveats(model, paired)) {
    emitEvent(EventKind::kModel, std::nullopt, caveat, 0);
  }
}

void Trainer::Impl::emitEvent(EventKind kind, std::optional<ArmKind> arm,
                              const std::string& message, int64_t samples) {
  EventRecord e;
  e.samples_seen = samples;
  e.wall_ms = msSince(start);
  e.kind = kind;
  e.arm = arm;
  e.message = message;
  publish(arm ? schedule.find(*arm) : nullptr, [this, e] { sink->onEvent(e); });
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
              schedule.next()->stepper->samplesSeen());
    return std::nullopt;
  }
  return requested;
}

void Trainer::Impl::scheduleSizeChange() {
  if (schedule.pending()) return;  // later requests wait in the queue until this one landed
  const int64_t m = schedule.m();
  const int64_t k = schedule.k();
  const auto new_m = acceptedSize(control.takeMicroBatch(), m, "micro-batch");
  const auto new_k = acceptedSize(control.takeAccum(), k, "K");
  if (!new_m && !new_k) return;
  const int64_t to_m = new_m.value_or(m);
  const int64_t to_k = new_k.value_or(k);
  if (const std::string why = refusedSizeChange(config, to_m, to_k, data.trainSize());
      !why.empty()) {
    emitEvent(EventKind::kRejected, std::nullopt, why, schedule.next()->stepper->samplesSeen());
    return;
  }
  const SizeChange& change = schedule.change(to_m, to_k);
  const std::string where =
      " for all arms at sample " + std::to_string(change.at) + " (optimizer state kept)";
  if (new_m) {
    emitEvent(EventKind::kMicroBatch, std::nullopt,
              "micro-batch " + std::to_string(m) + " → " + std::to_string(change.m) + where,
              change.at);
  }
  if (new_k) {
    emitEvent(EventKind::kAccum, std::nullopt,
              "K " + std::to_string(k) + " → " + std::to_string(change.k) + where, change.at);
  }
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
  // Summarised when told: in a round, after the arm's records have reached its recorder.
  publish(&arm, [this, &arm] { sink->onArmFinished(arm.summary(device)); });
  if (config.keep_weights && leads() && keepsWeights(status)) {
    const ArmKind kind = arm.stepper->kind();
    try {
      ArmWeights weights = keptWeights(kind, arm.stepper->model());
      publish(&arm, [this, weights = std::move(weights)] { sink->onArmWeights(weights); });
    } catch (const InputError& e) {
      emitEvent(EventKind::kModel, kind, std::string("final weights not kept: ") + e.what(),
                arm.stepper->samplesSeen());
    }
  }
}

void Trainer::Impl::evaluateArm(ArmRun& arm) {
  if (data.valSize() == 0 || !leads()) return;
  const EvalRecord e =
      evaluationRecord(*arm.stepper, data, device, dtype, config.seed, msSince(start));
  arm.last_eval = e;
  publish(&arm, [this, e] { sink->onEval(e); });
}

ArmRun* Trainer::Impl::probedArm() {
  // The accum arm's weights are the ones the lesson is about; without it, the first arm's.
  if (ArmRun* accum = schedule.find(ArmKind::kAccum)) return accum;
  return schedule.arms().front().get();
}

void Trainer::Impl::publish(ArmRun* about, std::function<void()> tell) {
  if (about && about->outbox) {
    about->outbox->hold(std::move(tell));
  } else {
    tell();
  }
}

int Trainer::Impl::armThreadsAllowed() const {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return armsAtOnce(config, cores, device.type() == torch::kCPU);
}

int Trainer::Impl::parallelArms(int64_t horizon) {
  const int wanted = armThreadsAllowed();
  // A change, a pause, a stop or a checkpoint finds every arm at rest on the sample clock.
  if (wanted == 1 || schedule.pending() || control.paused() || control.stopRequested() ||
      checkpoint.next() <= horizon) {
    return 1;
  }
  return RoundRunner::threadsFor(schedule.arms(), wanted);
}

void Trainer::Impl::record(ArmRun& arm, StepRecord& rec) {
  rec.memory_bytes = memoryNow();
  arm.recorder.complete(rec);
  if (rec.arm == ArmKind::kBigBatch) {
    // In a round the two were compared as they took this step (pairStep); otherwise
    // big-batch trails accum in the sample clock, so the pair is level after its step.
    ArmRun* accum = schedule.find(ArmKind::kAccum);
    std::optional<double> diff = pairing.take(rec.step, rec.samples_seen);
    if (!diff && accum && accum->stepper->steps() == rec.step &&
        accum->stepper->samplesSeen() == rec.samples_seen &&
        accum->status != ArmStatus::kDiverged) {
      diff = maxRelativeWeightDifference(accum->stepper->parameters(), arm.stepper->parameters());
    }
    if (accum && diff) {
      rec.weight_rel_diff = *diff;
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

void Trainer::Impl::pairStep(ArmRun& arm, const StepRecord& rec) {
  // One after another, record() compares the live weights; in a round the other arm may
  // already be steps on, or be training on another thread.
  if (!arm.outbox) return;
  const ArmKind kind = arm.stepper->kind();
  if (kind != ArmKind::kAccum && kind != ArmKind::kBigBatch) return;
  if (!schedule.find(ArmKind::kAccum) || !schedule.find(ArmKind::kBigBatch)) return;
  pairing.arrive(
      kind == ArmKind::kAccum ? WeightPairing::Side::kAccum : WeightPairing::Side::kBigBatch,
      rec.step, rec.samples_seen, arm.stepper->parameters());
}

void Trainer::Impl::forgetUnpaired() {
  const ArmRun* accum = schedule.find(ArmKind::kAccum);
  const ArmRun* big = schedule.find(ArmKind::kBigBatch);
  if (!accum || !big) return;
  if (accum->status != ArmStatus::kRunning) pairing.dropLeftBy(WeightPairing::Side::kBigBatch);
  if (big->status != ArmStatus::kRunning) pairing.dropLeftBy(WeightPairing::Side::kAccum);
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
      pairStep(arm, out.record);
      out.record.wall_ms = msSince(start);
      publish(&arm, [this, &arm, rec = out.record]() mutable { record(arm, rec); });
      break;
  }
  if (stepper.samplesSeen() >= arm.next_eval) {
    evaluateArm(arm);
    while (arm.next_eval <= stepper.samplesSeen()) arm.next_eval += eval_period;
  }
  if (&arm == probedArm() && probes.dueAt(stepper.samplesSeen())) {
    const ProbeRecord rec =
        probes.probe(arm, data, config, schedule.m(), schedule.k(), device, dtype, msSince(start));
    publish(&arm, [this, rec] { sink->onProbe(rec); });
  }
  if (stepper.samplesLeft() <= 0) finishArm(arm, ArmStatus::kFinished, "");
}

void Trainer::Impl::trainWindowOrFail(ArmRun& arm) {
  try {
    trainWindow(arm);
  } catch (const InputError&) {
    throw;
  } catch (const WorkerLost& e) {
    // The run cannot go on without the lost worker: the arms of this rank stop with it.
    finishArm(arm, ArmStatus::kFailed, e.what());
    emitEvent(EventKind::kFailed, arm.stepper->kind(), e.what(), arm.stepper->samplesSeen());
    for (auto& a : schedule.arms()) {
      if (a->status == ArmStatus::kRunning) {
        finishArm(*a, ArmStatus::kStopped, std::string("stopped: ") + e.what());
      }
    }
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    const ArmStepper& stepper = *arm.stepper;
    if (isOutOfMemory(e)) {
      finishArm(arm, ArmStatus::kFailed,
                "out of memory with a micro-batch of " + std::to_string(stepper.microBatch()) +
                    "; use a smaller micro-batch and a larger K to keep m·K = " +
                    std::to_string(stepper.effectiveBatch()));
    } else {
      finishArm(arm, ArmStatus::kFailed, "training failed: " + what);
    }
    emitEvent(EventKind::kFailed, stepper.kind(), arm.message, stepper.samplesSeen());
  }
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
  if (const int at_once = d.armThreadsAllowed(); at_once > 1) {
    info.device += ", " + std::to_string(at_once) + " arms at once";
  }
  info.dataset = d.data.describe();
  Model& model = d.schedule.arms().front()->stepper->model();
  info.parameters = model.parameterCount();
  info.model = model.spec() + " (" + std::to_string(info.parameters) + " parameters)";
  info.train_samples = d.data.trainSize();
  info.val_samples = d.data.valSize();
  info.budget_samples = d.budget;
  info.class_names = d.data.class_names;
  // Before the run's clock starts: the timing is no part of any arm's wall time.
  info.ceilings = measureCeilings(d.schedule.arms(), d.device, d.dtype);
  d.start = Clock::now();
  if (d.checkpoint.resuming()) {
    RunParts parts = d.parts();
    const double resumed_after_ms = d.checkpoint.load(parts);
    // The clock goes on from the checkpoint, so the records stay in order.
    d.start = Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double, std::milli>(resumed_after_ms));
    info.resumed_after_ms = resumed_after_ms;
  }
  sink.onRunStarted(info);
  if (!d.checkpoint.resuming()) {
    d.announceModel();
  } else {
    const ArmRun* behind = d.schedule.next();
    d.emitEvent(EventKind::kResumed, std::nullopt,
                "resumed from the checkpoint at " +
                    std::to_string(behind ? behind->stepper->samplesSeen() : 0) + " samples",
                behind ? behind->stepper->samplesSeen() : 0);
  }

  while (ArmRun* arm = d.schedule.next()) {
    const int64_t at = arm->stepper->samplesSeen();
    if (d.checkpoint.dueAt(at)) d.checkpoint.save(d.parts(), msSince(d.start), sink);
    d.pauseIfRequested(at);
    // A data-parallel stop travels with the accum arm's next all-reduce, so that every rank
    // stops after the same window.
    const bool agreed = d.group && d.group->stopAgreed();
    const ArmRun* shared = d.group ? d.schedule.find(ArmKind::kAccum) : nullptr;
    if (d.control.stopRequested() && shared && shared->status == ArmStatus::kRunning && !agreed) {
      d.group->wantStop();
    } else if (d.control.stopRequested() || agreed) {
      const std::string reason = d.control.stopRequested()
                                     ? d.control.stopReason()
                                     : "stopped because another worker was stopped";
      d.emitEvent(EventKind::kStop, std::nullopt, reason, at);
      for (auto& a : d.schedule.arms()) {
        if (a->status == ArmStatus::kRunning) d.finishArm(*a, ArmStatus::kStopped, reason);
      }
      break;
    }
    d.scheduleSizeChange();
    const int64_t horizon = d.schedule.roundHorizon();
    if (const int threads = d.parallelArms(horizon); threads > 1) {
      std::vector<ArmRun*> running;
      for (auto& a : d.schedule.arms()) running.push_back(a.get());
      d.rounds.train(running, d.rounds.lengthen(horizon, d.checkpoint.next()), threads);
      d.forgetUnpaired();
      continue;
    }
    d.schedule.applyDue(*arm);
    d.trainWindowOrFail(*arm);
    d.forgetUnpaired();
  }
  for (auto& arm : d.schedule.arms()) summary.arms.push_back(arm->summary(d.device));
  // A rank still waiting on this one (after a lost worker) hears the connections close now,
  // not at the timeout; the store stays for its roll call.
  if (d.group) d.group->leave();
  summary.variance_probe = d.probes.last();
  summary.variance_probes = d.probes.count();
  summary.variance_probe_pooled = poolProbes(d.probes.all());
  sink.onRunFinished(summary);
  d.checkpoint.discard();
  return summary;
}

}  // namespace accumlab
