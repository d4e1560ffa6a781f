// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <utility>
#include <vector>

#include "accumlab/records.h"

namespace accumlab {

/// Receives a run's records. Every call is made on the training thread, in order; an
/// implementation that hands records to another thread must guard them itself.
class MetricsSink {
 public:
  virtual ~MetricsSink() = default;
  /// Called once, after data and model are loaded and before the first step.
  virtual void onRunStarted(const RunInfo& info) {}
  virtual void onStep(const StepRecord& record) = 0;
  virtual void onEval(const EvalRecord& record) {}
  virtual void onEvent(const EventRecord& record) {}
  virtual void onProbe(const ProbeRecord& record) {}
  /// Called once per arm when it ends (finished, stopped, diverged or failed).
  virtual void onArmFinished(const ArmSummary& summary) {}
  /// Called after onArmFinished for an arm that finished or was stopped, when the run keeps
  /// its weights (ExperimentConfig::keep_weights): its final weights as a model.
  virtual void onArmWeights(const ArmWeights& weights) {}
  virtual void onRunFinished(const RunSummary& summary) {}
  /// Called before the trainer saves a checkpoint: a sink that keeps records elsewhere makes
  /// everything so far durable (a run resumed from the checkpoint redoes only what follows).
  virtual void flush() {}
};

/// Hears a run and keeps nothing (`run --quiet`, the ranks past 0, a dry run, benchmarks).
class NullSink : public MetricsSink {
 public:
  void onStep(const StepRecord&) override {}
};

/// Forwards every call to several sinks, in order, on the thread that calls it (the training
/// thread, like any sink). The sinks are not owned and must outlive it.
class FanOutSink : public MetricsSink {
 public:
  explicit FanOutSink(std::vector<MetricsSink*> sinks) : sinks_(std::move(sinks)) {}
  void onRunStarted(const RunInfo& info) override { all(&MetricsSink::onRunStarted, info); }
  void onStep(const StepRecord& r) override { all(&MetricsSink::onStep, r); }
  void onEval(const EvalRecord& r) override { all(&MetricsSink::onEval, r); }
  void onEvent(const EventRecord& r) override { all(&MetricsSink::onEvent, r); }
  void onProbe(const ProbeRecord& r) override { all(&MetricsSink::onProbe, r); }
  void onArmFinished(const ArmSummary& s) override { all(&MetricsSink::onArmFinished, s); }
  void onArmWeights(const ArmWeights& w) override { all(&MetricsSink::onArmWeights, w); }
  void onRunFinished(const RunSummary& s) override { all(&MetricsSink::onRunFinished, s); }
  void flush() override { all(&MetricsSink::flush); }

 private:
  /// Makes the call on every sink, in order.
  template <typename Call, typename... Args>
  void all(Call call, const Args&... args) {
    for (MetricsSink* s : sinks_) (s->*call)(args...);
  }

  std::vector<MetricsSink*> sinks_;
};

}  // namespace accumlab
