// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/sweep.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "accumlab/input_error.h"
#include "accumlab/smoothing.h"
#include "sweeps/json_number.h"

namespace accumlab {

namespace {

using nlohmann::json;

json number(double v) { return std::isfinite(v) ? json(v) : json(); }

int64_t integerOr(const json& j, const char* key, int64_t fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int64_t>() : fallback;
}

/// The step record at or just after `step` (the last one when beyond).
const StepRecord* recordNear(const std::vector<StepRecord>& steps, double step) {
  for (const StepRecord& r : steps) {
    if (static_cast<double>(r.step) >= step) return &r;
  }
  return steps.empty() ? nullptr : &steps.back();
}

}  // namespace

bool SweepPoint::done() const {
  return status == SweepStatus::kReached || status == SweepStatus::kMissed ||
         status == SweepStatus::kDiverged || status == SweepStatus::kFailed;
}

void measurePoint(SweepPoint& p, const ArmSummary& s, const std::vector<StepRecord>& steps,
                  const std::vector<EvalRecord>& evals, const std::vector<ProbeRecord>& probes,
                  const SweepTarget& target) {
  std::optional<Crossing> crossing;
  if (target.kind == SweepTarget::Kind::kLoss) {
    std::vector<double> x, samples, ema_loss;
    DebiasedEma ema(target.smoothing);
    for (const StepRecord& r : steps) {
      x.push_back(static_cast<double>(r.step));
      samples.push_back(static_cast<double>(r.samples_seen));
      ema_loss.push_back(ema.add(r.loss));
    }
    crossing = firstCrossingBelow(x, samples, ema_loss, target.value);
  } else {
    std::vector<double> x, samples, accuracy;
    for (const EvalRecord& e : evals) {
      x.push_back(static_cast<double>(e.step));
      samples.push_back(static_cast<double>(e.samples_seen));
      accuracy.push_back(e.accuracy);
    }
    crossing = firstCrossingAbove(x, samples, accuracy, target.value);
  }
  p.steps_to_target = crossing ? crossing->step : kNaN;
  p.samples_to_target = crossing ? crossing->samples : kNaN;
  switch (s.status) {
    case ArmStatus::kFinished:
    case ArmStatus::kStopped:
      p.status = crossing ? SweepStatus::kReached : SweepStatus::kMissed;
      break;
    case ArmStatus::kDiverged:
      p.status = SweepStatus::kDiverged;
      break;
    case ArmStatus::kFailed:
      p.status = SweepStatus::kFailed;
      break;
    default:
      p.status = SweepStatus::kInterrupted;
      break;
  }
  p.message = s.message;
  p.loss_variance = s.loss_variance_detrended;
  p.loss_variance_count = s.loss_variance_count;
  p.variance_probe_ratio = probes.empty() ? kNaN : probes.back().ratio;
  p.peak_tensor_bytes = s.peak_tensor_bytes;
  p.samples_per_s = s.samples_per_s;
  p.val_accuracy = s.val_accuracy;
  p.steps = s.steps;
  const StepRecord* near = crossing ? recordNear(steps, crossing->step) : nullptr;
  p.b_simple = near && std::isfinite(near->b_simple) ? near->b_simple : s.b_simple;
}

SweepAnalysis analyzeSweep(const std::vector<SweepPoint>& points) {
  SweepAnalysis a;
  // For each B: the reached point of fewest steps (Shallue et al.: each B at its best LR),
  // else the first point that trained its budget, for the variance.
  std::map<int64_t, const SweepPoint*> best, finished;
  for (const SweepPoint& p : points) {
    const int64_t b = p.effectiveBatch();
    if (p.status == SweepStatus::kReached) {
      auto& slot = best[b];
      if (!slot || p.steps_to_target < slot->steps_to_target) slot = &p;
    }
    if ((p.status == SweepStatus::kReached || p.status == SweepStatus::kMissed) &&
        std::isfinite(p.loss_variance) && p.loss_variance > 0 && !finished.count(b)) {
      finished[b] = &p;
    }
  }
  std::vector<double> batch, steps, b_simple;
  for (const auto& [b, p] : best) {
    batch.push_back(static_cast<double>(b));
    steps.push_back(p->steps_to_target);
    a.best_points.push_back(p->index);
    if (std::isfinite(p->b_simple)) b_simple.push_back(p->b_simple);
  }
  try {
    a.steps_fit = fitStepsToTarget(batch, steps);
  } catch (const InputError& e) {
    a.steps_fit_error = e.what();
    if (batch.size() < 3) {
      a.steps_fit_error =
          "the steps-to-target fit needs 3 batch sizes that reached the target, got " +
          std::to_string(batch.size()) + "; choose an easier target or a larger budget per point";
    }
  }
  std::vector<double> var_b, var;
  for (const auto& [b, fallback] : finished) {
    const auto it = best.find(b);
    const SweepPoint* p = it != best.end() && std::isfinite(it->second->loss_variance) &&
                                  it->second->loss_variance > 0
                              ? it->second
                              : fallback;
    var_b.push_back(static_cast<double>(b));
    var.push_back(p->loss_variance);
  }
  try {
    a.variance_slope = fitLogLogSlope(var_b, var);
  } catch (const InputError& e) {
    a.variance_slope_error = std::string(e.what()) +
                             " (one per batch size that trained its budget or reached the target)";
  }
  if (!b_simple.empty()) {
    std::sort(b_simple.begin(), b_simple.end());
    const size_t n = b_simple.size();
    a.b_simple = n % 2 ? b_simple[n / 2] : 0.5 * (b_simple[n / 2 - 1] + b_simple[n / 2]);
  }
  return a;
}

std::string sweepPointToJson(const SweepPoint& p) {
  const json j = {
      {"index", p.index},
      {"micro_batch", p.micro_batch},
      {"accum", p.accum},
      {"effective_batch", p.effectiveBatch()},
      {"lr", number(p.lr)},
      {"run_id", p.run_id == 0 ? json() : json(p.run_id)},
      {"status", toString(p.status)},
      {"steps_to_target", number(p.steps_to_target)},
      {"samples_to_target", number(p.samples_to_target)},
      {"loss_variance", number(p.loss_variance)},
      {"loss_variance_count", p.loss_variance_count},
      {"variance_probe_ratio", number(p.variance_probe_ratio)},
      {"peak_tensor_bytes", p.peak_tensor_bytes < 0 ? json() : json(p.peak_tensor_bytes)},
      {"samples_per_s", number(p.samples_per_s)},
      {"b_simple", number(p.b_simple)},
      {"val_accuracy", number(p.val_accuracy)},
      {"steps", p.steps},
      {"message", p.message}};
  return j.dump();
}

void sweepPointFromJson(const std::string& text, SweepPoint& p) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return;
  p.steps_to_target = numberOr(j, "steps_to_target", p.steps_to_target);
  p.samples_to_target = numberOr(j, "samples_to_target", p.samples_to_target);
  p.loss_variance = numberOr(j, "loss_variance", p.loss_variance);
  p.loss_variance_count = integerOr(j, "loss_variance_count", p.loss_variance_count);
  p.variance_probe_ratio = numberOr(j, "variance_probe_ratio", p.variance_probe_ratio);
  p.peak_tensor_bytes = integerOr(j, "peak_tensor_bytes", p.peak_tensor_bytes);
  p.samples_per_s = numberOr(j, "samples_per_s", p.samples_per_s);
  p.b_simple = numberOr(j, "b_simple", p.b_simple);
  p.val_accuracy = numberOr(j, "val_accuracy", p.val_accuracy);
  p.steps = integerOr(j, "steps", p.steps);
  if (j.contains("message") && j["message"].is_string()) p.message = j["message"];
}

}  // namespace accumlab
