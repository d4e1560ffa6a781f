// SPDX-License-Identifier: GPL-3.0-or-later
#include "controller/metrics_buffer.h"

#include <utility>

namespace accumlab::ui {

void MetricsBuffer::append(const std::function<void(RecordBatch&)>& add, Urgency) {
  // The GUI drains on its own timer, so urgency changes nothing here.
  std::lock_guard<std::mutex> lock(mutex_);
  add(pending_);
}

RecordBatch MetricsBuffer::take() {
  // Swap under the lock and return by value: the lock is held for a few pointer moves, so
  // the training thread never waits for the GUI to plot.
  RecordBatch out;
  std::lock_guard<std::mutex> lock(mutex_);
  std::swap(out, pending_);
  return out;
}

}  // namespace accumlab::ui
