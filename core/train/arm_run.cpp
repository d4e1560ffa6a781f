// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/arm_run.h"

#include <cstdio>

#include "memory/memory_probe.h"
#include "records/record_fields.h"
#include "train/state_archive.h"

namespace accumlab {

namespace {

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

void putEval(torch::serialize::OutputArchive& a, const std::string& p,
             const std::optional<EvalRecord>& e) {
  putInt(a, p + ".has", e ? 1 : 0);
  if (e) putFields(a, p, *e, evalFields());
}

std::optional<EvalRecord> getEval(torch::serialize::InputArchive& a, const std::string& p,
                                  const std::string& path, ArmKind arm) {
  if (getInt(a, p + ".has", path) == 0) return std::nullopt;
  EvalRecord e;
  e.arm = arm;
  getFields(a, p, e, evalFields(), path, 1);
  return e;
}

/// The arm's own parts of a checkpoint with their keys, once (`visit(key, member)`): what
/// ArmRun::save writes and ArmRun::load reads. The stepper and the last evaluation save
/// themselves; `noise` is the recorder's state.
template <typename Run, typename Noise, typename Visit>
void forEachArmRunPart(Run& run, Noise& noise, Visit&& visit) {
  visit(".status", run.status);
  visit(".message", run.message);
  visit(".diverged_at_step", run.diverged_at_step);
  visit(".next_eval", run.next_eval);
  visit(".equivalence_rel_diff", run.equivalence_rel_diff);
  visit(".parted_at_step", run.parted_at_step);
  visit(".awaiting_change", run.awaiting_change);
  visit(".noise.trace", noise.trace);
  visit(".noise.trace_n", noise.trace_n);
  visit(".noise.g_sq", noise.g_sq);
  visit(".noise.g_sq_n", noise.g_sq_n);
  visit(".losses", noise.losses);
}

}  // namespace

ArmSummary ArmRun::summary(torch::Device device) const {
  const ArmStepper& s = *stepper;
  ArmSummary out;
  out.arm = s.kind();
  out.status = status;
  out.message = message;
  out.micro_batch = s.microBatch();
  out.accum = s.accum();
  out.memory_piece = s.pieceCap();
  out.steps = s.steps();
  out.samples_seen = s.samplesSeen();
  out.final_train_loss = recorder.lossMean();
  out.loss_variance = recorder.lossVariance();
  out.loss_variance_detrended = recorder.lossDetrendedVariance();
  out.loss_variance_count = recorder.lossCount();
  if (last_eval) {
    out.val_loss = last_eval->loss;
    out.val_accuracy = last_eval->accuracy;
  }
  out.noise_per_update = recorder.noisePerUpdate(s.effectiveBatch());
  out.b_simple = recorder.bSimple();
  out.samples_per_s =
      s.trainSeconds() > 0 ? static_cast<double>(s.samplesSeen()) / s.trainSeconds() : kNaN;
  out.tokens_per_s = out.samples_per_s * s.tokensPerSample();
  if (const double flops = stepper->model().flopsPerSample(); flops > 0) {
    out.flops_per_sample = flops;
    out.gflop_per_s = out.samples_per_s * flops * 1e-9;
  }
  out.ceiling_gflop_per_s = ceiling.gflop_per_s;
  out.ceiling_op = ceiling.op;
  out.peak_memory_bytes = peakMemory(device);
  out.peak_tensor_bytes = s.peakTensorBytes();
  out.equivalence_rel_diff = equivalence_rel_diff;
  out.trajectories_parted_at_step = parted_at_step;
  setGradChecks(out, s.gradChecks());
  out.diverged_at_step = diverged_at_step;
  out.wall_s = s.trainSeconds();
  out.batch_dependent = stepper->model().batchDependent();
  out.stochastic = stepper->model().stochastic();
  out.weights_digest = weightsDigest(s.parameters());
  out.allreduce_s = s.allReduceSeconds();
  return out;
}

void ArmRun::save(torch::serialize::OutputArchive& a, const std::string& p) const {
  stepper->save(a, p);
  putEval(a, p + ".last_eval", last_eval);
  const StepRecorder::State noise = recorder.state();
  forEachArmRunPart(*this, noise, ArchiveWriter{a, p});
}

void ArmRun::load(torch::serialize::InputArchive& a, const std::string& p,
                  const std::string& path) {
  stepper->load(a, p, path);
  last_eval = getEval(a, p + ".last_eval", path, stepper->kind());
  StepRecorder::State noise;
  forEachArmRunPart(*this, noise, ArchiveReader{a, p, path});
  recorder.restore(noise);
}

}  // namespace accumlab
