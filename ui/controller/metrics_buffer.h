// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <mutex>

#include "accumlab/batching_sink.h"

namespace accumlab::ui {

/// The GUI's MetricsSink: the training thread appends records, the GUI thread takes them in
/// batches (ARCHITECTURE.md, "One path for a run's records"). The pending batch is guarded
/// by `mutex_`; appends are O(1) and never wait on the GUI.
class MetricsBuffer : public BatchingSink {
 public:
  /// Moves everything appended so far out of the buffer (any thread).
  RecordBatch take();

 protected:
  void append(const std::function<void(RecordBatch&)>& add, Urgency urgency) override;

 private:
  std::mutex mutex_;
  RecordBatch pending_;
};

}  // namespace accumlab::ui
