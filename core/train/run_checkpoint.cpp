// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/run_checkpoint.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "accumlab/input_error.h"
#include "accumlab/metrics_sink.h"
#include "train/state_archive.h"

namespace accumlab {

namespace {

constexpr char kCheckpointMark[] = "accumlab.trainer_checkpoint";

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

void RunCheckpoint::every(int64_t samples, std::function<std::string()> path_of) {
  every_ = samples;
  next_ = samples;
  path_of_ = std::move(path_of);
}

bool RunCheckpoint::dueAt(int64_t at) {
  if (every_ <= 0 || at < next_) return false;
  while (next_ <= at) next_ += every_;
  return true;
}

void RunCheckpoint::save(const RunParts& parts, double elapsed_ms, MetricsSink& sink) {
  sink.flush();
  if (path_.empty()) path_ = path_of_ ? path_of_() : "";
  if (path_.empty()) return;
  torch::serialize::OutputArchive a;
  putText(a, kCheckpointMark, "1");
  putText(a, "config", configToJson(parts.config));
  putInt(a, "every", every_);
  putInt(a, "next_checkpoint", next_);
  putDouble(a, "elapsed_ms", elapsed_ms);
  parts.schedule.save(a);
  const ProbeLog& probes = parts.probes;
  putInt(a, "next_probe", probes.next);
  putInt(a, "probes", probes.count);
  putProbe(a, "last_probe", probes.last);
  putInt(a, "probe_log.count", static_cast<int64_t>(probes.all.size()));
  for (size_t i = 0; i < probes.all.size(); ++i) {
    putProbe(a, "probe_log." + std::to_string(i), probes.all[i]);
  }
  const auto& arms = parts.schedule.arms();
  putInt(a, "arms", static_cast<int64_t>(arms.size()));
  for (size_t i = 0; i < arms.size(); ++i) arms[i]->save(a, "arm" + std::to_string(i));
  // Written aside and renamed: a kill while saving leaves the previous checkpoint whole.
  const std::string aside = path_ + ".partial";
  try {
    a.save_to(aside);
  } catch (const std::exception& e) {
    throw InputError("cannot write the checkpoint " + path_ + " (" +
                     std::string(e.what()).substr(0, std::string(e.what()).find('\n')) + ")");
  }
  if (std::rename(aside.c_str(), path_.c_str()) != 0) {
    throw InputError("cannot write the checkpoint " + path_ + " (" + std::strerror(errno) + ")");
  }
}

double RunCheckpoint::load(RunParts& parts) {
  const std::string& path = resume_path_;
  torch::serialize::InputArchive a;
  try {
    a.load_from(path);
  } catch (const std::exception&) {
    throw InputError("checkpoint " + path + " cannot be read: it is missing or damaged");
  }
  if (getText(a, kCheckpointMark, path) != "1") {
    throw InputError(path + " is not a checkpoint of this version of AccumLab");
  }
  if (getText(a, "config", path) != configToJson(parts.config)) {
    throw InputError("checkpoint " + path + " belongs to another experiment (its config differs)");
  }
  const auto& arms = parts.schedule.arms();
  if (getInt(a, "arms", path) != static_cast<int64_t>(arms.size())) {
    throw InputError("checkpoint " + path + " holds other arms than this experiment");
  }
  if (every_ == 0) {
    every_ = getInt(a, "every", path);
    path_ = path;
  }
  next_ = getInt(a, "next_checkpoint", path);
  const double elapsed_ms = getDouble(a, "elapsed_ms", path);
  parts.schedule.load(a, path);
  ProbeLog& probes = parts.probes;
  probes.next = getInt(a, "next_probe", path);
  probes.count = getInt(a, "probes", path);
  probes.last = getProbe(a, "last_probe", path);
  probes.all.clear();
  c10::IValue logged;
  if (a.try_read("probe_log.count", logged) && logged.isInt()) {
    for (int64_t i = 0; i < logged.toInt(); ++i) {
      if (auto p = getProbe(a, "probe_log." + std::to_string(i), path)) probes.all.push_back(*p);
    }
  } else if (probes.last) {
    probes.all.push_back(*probes.last);  // a checkpoint from before probes were pooled
  }
  for (size_t i = 0; i < arms.size(); ++i) arms[i]->load(a, "arm" + std::to_string(i), path);
  return elapsed_ms;
}

void RunCheckpoint::discard() {
  if (!path_.empty()) std::remove(path_.c_str());
}

}  // namespace accumlab
