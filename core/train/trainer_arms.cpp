// SPDX-License-Identifier: GPL-3.0-or-later
// The arms of a Trainer's run: made (the device, the data, one model per arm from the same
// initial weights, the checks that a model fits the data, the data-parallel group), announced,
// and summarised at the end.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "accumlab/device.h"
#include "accumlab/input_error.h"
#include "data/dataset_factory.h"
#include "memory/memory_probe.h"
#include "train/device_select.h"
#include "train/trainer_impl.h"

namespace accumlab {

namespace {

std::string shapeText(c10::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
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

}  // namespace

void Trainer::Impl::joinGroup() {
  const int64_t n = config.workers;
  if (!worker_options) {
    throw InputError(
        "this experiment trains on " + std::to_string(n) +
        " workers: run it with `accumlab-cli run`, which starts them, or set workers to 1");
  }
  if (checkpoint_every > 0 || !resume_path.empty()) {
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
                     shapeText(x.sizes().slice(1)) + " from dataset '" + data.name + "' (" +
                     detail + "); pick a model made for this input shape");
  }
  model.setTraining(true);
  if (data.isText()) {
    if (out.dim() != 3 || out.size(0) != 1 || out.size(1) != x.size(1) ||
        out.size(2) != data.num_outputs) {
      throw InputError("model '" + model.spec() + "' outputs " + shapeText(out.sizes()) +
                       " for a sequence of " + shapeText(x.sizes()) +
                       " byte tokens, but text "
                       "data needs [1x" +
                       std::to_string(x.size(1)) + "x" + std::to_string(data.num_outputs) +
                       "] (a logit per byte value at every position); change the model's "
                       "last layer");
    }
    return;
  }
  if (out.dim() != 2 || out.size(0) != 1 || out.size(1) != data.num_outputs) {
    throw InputError(
        "model '" + model.spec() + "' outputs " + shapeText(out.sizes()) +
        " per sample but dataset '" + data.name + "' needs [1x" + std::to_string(data.num_outputs) +
        "] (" +
        (data.task == Task::kClassification ? "one logit per class" : "one value per target") +
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
  // The ranks meet before loading their data, so that they load it at the same time.
  if (config.workers > 1) joinGroup();
  // A stop (Ctrl-C, SIGTERM, the app's Stop) ends even a long read at once: ReadStopped.
  data = loadDataset(config, nullptr, ReadStop(&control.stopFlag()));
  if (data.trainSize() < 1)
    throw InputError("dataset '" + config.data + "' has no training samples");
  m = config.micro_batch;
  k = config.accum;
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
  probe_period = !probesVariance(config) || !leads() ? 0
                 : config.probe_every > 0            ? config.probe_every
                                                     : eval_period;
  next_probe = probe_period;

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
    if (!arms.empty()) model->copyStateFrom(arms.front()->stepper->model());
    checkModelFits(*model);
    auto stepper = std::make_unique<ArmStepper>(kind, std::move(model), data, config, device, dtype,
                                                budget, std::move(memory));
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
              std::to_string(n) + " workers share each window of m·K·N = " + std::to_string(m) +
                  "·" + std::to_string(k) + "·" + std::to_string(n) + " = " +
                  std::to_string(m * k * n) +
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
  s.tokens_per_s = s.samples_per_s * stepper.tokensPerSample();
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

}  // namespace accumlab
