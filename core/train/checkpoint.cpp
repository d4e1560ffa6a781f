// SPDX-License-Identifier: GPL-3.0-or-later
// The run's checkpoint, its one format (Trainer::checkpointEvery, Trainer::resumeFrom): the
// run's clock, sizes, pending change and probes, and every arm's status, recorder and stepper
// (its weights, optimizer state, sample position and tallies), in one torch::serialize archive
// written aside and renamed.
#include "models/model_state.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "train/optimizer_factory.h"
#include "train/state_archive.h"
#include "train/trainer_impl.h"

namespace accumlab {

namespace {

constexpr char kCheckpointMark[] = "accumlab.trainer_checkpoint";

void putEval(torch::serialize::OutputArchive& a, const std::string& p,
             const std::optional<EvalRecord>& e) {
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

void putProbe(torch::serialize::OutputArchive& a, const std::string& p,
              const std::optional<ProbeRecord>& r) {
  putInt(a, p + ".has", r ? 1 : 0);
  if (!r) return;
  putInt(a, p + ".arm", static_cast<int64_t>(r->arm));
  for (const auto& [key, v] : {std::pair<const char*, int64_t>{"step", r->step},
                               {"samples_seen", r->samples_seen},
                               {"micro_batch", r->micro_batch},
                               {"accum", r->accum},
                               {"repeats", r->repeats},
                               {"batch_dependent", r->batch_dependent ? 1 : 0}}) {
    putInt(a, p + "." + key, v);
  }
  for (const auto& [key, v] : {std::pair<const char*, double>{"wall_ms", r->wall_ms},
                               {"var_micro", r->var_micro},
                               {"var_window", r->var_window},
                               {"ratio", r->ratio},
                               {"ci_low", r->ci_low},
                               {"ci_high", r->ci_high},
                               {"theory", r->theory}}) {
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
    throw InputError("cannot write the checkpoint " + checkpoint_path + " (" +
                     std::strerror(errno) + ")");
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
    noise.traceEma().restore(getDouble(a, p + ".noise.trace", path),
                             getInt(a, p + ".noise.trace_n", path));
    noise.gSqEma().restore(getDouble(a, p + ".noise.g_sq", path),
                           getInt(a, p + ".noise.g_sq_n", path));
    arm.recorder.losses().restore(getValues(a, p + ".losses", path));
  }
}

}  // namespace accumlab
