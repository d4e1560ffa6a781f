// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/probe_schedule.h"

#include <algorithm>

#include "records/record_fields.h"
#include "train/arm_random.h"
#include "train/state_archive.h"
#include "train/variance_probe.h"

namespace accumlab {

namespace {

/// Samples trained between two variance probes, at least, per sample a probe runs forward.
constexpr int64_t kProbeSpacing = 2;
/// The probe's seeds, from the experiment's: the rows it draws (one draw per position) and,
/// for a model with dropout, its masks.
constexpr uint64_t kRowsSeedStep = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kMasksSeed = 0x70726F6265ULL;  // "probe"

void putProbe(torch::serialize::OutputArchive& a, const std::string& p,
              const std::optional<ProbeRecord>& r) {
  putInt(a, p + ".has", r ? 1 : 0);
  if (!r) return;
  putInt(a, p + ".arm", static_cast<int64_t>(r->arm));
  putFields(a, p, *r, probeFields());
}

std::optional<ProbeRecord> getProbe(torch::serialize::InputArchive& a, const std::string& p,
                                    const std::string& path) {
  if (getInt(a, p + ".has", path) == 0) return std::nullopt;
  ProbeRecord r;
  r.arm = static_cast<ArmKind>(getInt(a, p + ".arm", path));
  // The probes table's first columns (version 4) were always in checkpoints; later ones,
  // from `pool` on, may be missing from an older checkpoint.
  getFields(a, p, r, probeFields(), path, 4);
  return r;
}

}  // namespace

ProbeRecord ProbeSchedule::probe(ArmRun& arm, const Dataset& data, const ExperimentConfig& config,
                                 int64_t m, int64_t k, torch::Device device, torch::Dtype dtype,
                                 double wall_ms) {
  const int64_t at = arm.stepper->samplesSeen();
  Model& model = arm.stepper->model();
  // Dropout draws from the default generators, which every arm reseeds before its next
  // window; seeding them here too makes the probe itself reproducible.
  if (model.stochastic()) ArmRandom(config.seed ^ kMasksSeed, device).seedWindow(at);
  ProbeRequest request;
  request.micro_batch = m;
  request.accum = k * config.workers;
  request.repeats = config.probe_repeats;
  request.seed = config.seed ^ (kRowsSeedStep * static_cast<uint64_t>(at + 1));
  ProbeRecord rec = probeVariance(model, data, request, device, dtype);
  rec.arm = arm.stepper->kind();
  rec.step = arm.stepper->steps();
  rec.samples_seen = at;
  rec.wall_ms = wall_ms;
  last_ = rec;
  all_.push_back(rec);
  ++count_;
  // A probe runs its pool forward (R·m·(K+1) samples for a batch-dependent model). Training
  // at least twice that many samples before the next one keeps its cost a small part of the
  // run (a forward pass is about a third of a training step) even for large pools or m·K,
  // where a fixed interval would make probing dominate.
  const int64_t cost = probeForwardSamples(request, model.batchDependent(), data.trainSize());
  const int64_t gap = std::max(period_, kProbeSpacing * cost);
  while (next_ <= at) next_ += gap;
  return rec;
}

void ProbeSchedule::save(torch::serialize::OutputArchive& a) const {
  putInt(a, "next_probe", next_);
  putInt(a, "probes", count_);
  putProbe(a, "last_probe", last_);
  putInt(a, "probe_log.count", static_cast<int64_t>(all_.size()));
  for (size_t i = 0; i < all_.size(); ++i) putProbe(a, "probe_log." + std::to_string(i), all_[i]);
}

void ProbeSchedule::load(torch::serialize::InputArchive& a, const std::string& path) {
  next_ = getInt(a, "next_probe", path);
  count_ = getInt(a, "probes", path);
  last_ = getProbe(a, "last_probe", path);
  all_.clear();
  c10::IValue logged;
  if (a.try_read("probe_log.count", logged) && logged.isInt()) {
    for (int64_t i = 0; i < logged.toInt(); ++i) {
      if (auto p = getProbe(a, "probe_log." + std::to_string(i), path)) all_.push_back(*p);
    }
  } else if (last_) {
    all_.push_back(*last_);  // a checkpoint from before probes were pooled
  }
}

}  // namespace accumlab
