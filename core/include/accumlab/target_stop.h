// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "accumlab/metrics_sink.h"
#include "accumlab/smoothing.h"
#include "accumlab/sweep.h"

namespace accumlab {

/// Stops a run once every arm has reached a target: its debiased-EMA training loss at or
/// below one, or its validation accuracy at or above one. `stop` is called once, with the
/// reason, on the training thread (e.g. Trainer::requestStop).
class TargetStop : public MetricsSink {
 public:
  TargetStop(size_t arms, std::optional<double> loss, std::optional<double> accuracy,
             double smoothing, std::function<void(const std::string&)> stop)
      : arms_(arms),
        loss_(loss),
        accuracy_(accuracy),
        smoothing_(smoothing),
        stop_(std::move(stop)) {}
  /// Stops at a sweep's target.
  TargetStop(size_t arms, const SweepTarget& target, std::function<void(const std::string&)> stop)
      : TargetStop(arms,
                   target.kind == SweepTarget::Kind::kLoss ? std::optional<double>(target.value)
                                                           : std::nullopt,
                   target.kind == SweepTarget::Kind::kValAccuracy
                       ? std::optional<double>(target.value)
                       : std::nullopt,
                   target.smoothing, std::move(stop)) {}

  void onStep(const StepRecord& r) override {
    if (!loss_) return;
    auto it = ema_.try_emplace(r.arm, smoothing_).first;
    if (it->second.add(r.loss) <= *loss_) reach(r.arm, "smoothed training loss");
  }
  void onEval(const EvalRecord& e) override {
    if (accuracy_ && e.accuracy >= *accuracy_) reach(e.arm, "validation accuracy");
  }

 private:
  void reach(ArmKind arm, const char* what) {
    reached_.insert(arm);
    if (reached_.size() < arms_ || stopped_) return;
    stopped_ = true;
    char target[64];
    std::snprintf(target, sizeof target, "%g", loss_ ? *loss_ : *accuracy_);
    stop_(std::string("stopped at the target: ") + what + (loss_ ? " ≤ " : " ≥ ") + target);
  }

  size_t arms_;
  std::optional<double> loss_, accuracy_;
  double smoothing_;
  std::function<void(const std::string&)> stop_;
  std::map<ArmKind, DebiasedEma> ema_;
  std::set<ArmKind> reached_;
  bool stopped_ = false;
};

}  // namespace accumlab
