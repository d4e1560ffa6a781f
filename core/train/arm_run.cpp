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
  putInt(a, p + ".status", static_cast<int64_t>(status));
  putText(a, p + ".message", message);
  putInt(a, p + ".diverged_at_step", diverged_at_step);
  putInt(a, p + ".next_eval", next_eval);
  putEval(a, p + ".last_eval", last_eval);
  putDouble(a, p + ".equivalence_rel_diff", equivalence_rel_diff);
  putInt(a, p + ".parted_at_step", parted_at_step);
  putInt(a, p + ".awaiting_change", awaiting_change ? 1 : 0);
  const StepRecorder::State st = recorder.state();
  putDouble(a, p + ".noise.trace", st.trace);
  putInt(a, p + ".noise.trace_n", st.trace_n);
  putDouble(a, p + ".noise.g_sq", st.g_sq);
  putInt(a, p + ".noise.g_sq_n", st.g_sq_n);
  putValues(a, p + ".losses", st.losses);
}

void ArmRun::load(torch::serialize::InputArchive& a, const std::string& p,
                  const std::string& path) {
  stepper->load(a, p, path);
  status = static_cast<ArmStatus>(getInt(a, p + ".status", path));
  message = getText(a, p + ".message", path);
  diverged_at_step = getInt(a, p + ".diverged_at_step", path);
  next_eval = getInt(a, p + ".next_eval", path);
  last_eval = getEval(a, p + ".last_eval", path, stepper->kind());
  equivalence_rel_diff = getDouble(a, p + ".equivalence_rel_diff", path);
  parted_at_step = getInt(a, p + ".parted_at_step", path);
  awaiting_change = getInt(a, p + ".awaiting_change", path) != 0;
  StepRecorder::State st;
  st.trace = getDouble(a, p + ".noise.trace", path);
  st.trace_n = getInt(a, p + ".noise.trace_n", path);
  st.g_sq = getDouble(a, p + ".noise.g_sq", path);
  st.g_sq_n = getInt(a, p + ".noise.g_sq_n", path);
  st.losses = getValues(a, p + ".losses", path);
  recorder.restore(st);
}

}  // namespace accumlab
