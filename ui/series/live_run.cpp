// SPDX-License-Identifier: GPL-3.0-or-later
#include "series/live_run.h"

#include <utility>

namespace accumlab::ui {

LiveRun::LiveRun(QObject* parent) : QObject(parent) {}

void LiveRun::begin(const QString& label) {
  data_ = RunData{};
  data_.label = label.toStdString();
  running_ = true;
  emit begun();
}

void LiveRun::append(const RecordBatch& batch) {
  data_.append(batch);
  emit appended(batch);
  for (const EventRecord& e : batch.events) emit eventAdded(e);
  for (const ArmSummary& s : batch.arm_summaries) emit armEnded(s.arm);
}

void LiveRun::end(bool failed) {
  running_ = false;
  emit ended(failed);
}

}  // namespace accumlab::ui
