// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

#include "accumlab/metrics_sink.h"
#include "accumlab/record_batch.h"

namespace accumlab {

/// A MetricsSink that adds every record to a RecordBatch for another thread to take (the
/// store's writer, the GUI's drain). The subclass owns the batch and its lock: it implements
/// append(), which runs `add` on the batch under that lock. The on* calls come from the
/// training thread, like any sink's.
class BatchingSink : public MetricsSink {
 public:
  void onRunStarted(const RunInfo& info) override;
  void onStep(const StepRecord& record) override;
  void onEval(const EvalRecord& record) override;
  void onEvent(const EventRecord& record) override;
  void onProbe(const ProbeRecord& record) override;
  void onArmFinished(const ArmSummary& summary) override;
  void onRunFinished(const RunSummary& summary) override;

 protected:
  /// How soon the taker should see an addition.
  enum class Urgency {
    kLater,  ///< whenever it next takes (rows while training)
    kNow,    ///< at once (a run that starts or an arm that ends)
  };
  /// Runs `add` on the pending batch under the subclass's lock.
  virtual void append(const std::function<void(RecordBatch&)>& add, Urgency urgency) = 0;
};

}  // namespace accumlab
