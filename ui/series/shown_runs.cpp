// SPDX-License-Identifier: GPL-3.0-or-later
#include "series/shown_runs.h"

#include <utility>

#include "series/live_run.h"

namespace accumlab::ui {

ShownRuns::ShownRuns(QObject* parent) : QObject(parent) {}

void ShownRuns::setLiveRun(const LiveRun* live) {
  if (live_) disconnect(live_, nullptr, this, nullptr);
  live_ = live;
  if (!live_) return;
  connect(live_, &LiveRun::begun, this, [this] {
    stored_.clear();
    shown_ = {&live_->data()};
    emit changed();
  });
  connect(live_, &LiveRun::appended, this, [this] {
    if (isLive()) emit liveAppended();  // else stored runs are on screen
  });
}

void ShownRuns::showStored(std::vector<RunData> runs) {
  stored_ = std::move(runs);
  shown_.clear();
  for (const RunData& run : stored_) shown_.push_back(&run);
  emit changed();
}

bool ShownRuns::isLive() const {
  return live_ && shown_.size() == 1 && shown_.front() == &live_->data();
}

std::vector<RunData> ShownRuns::copies() const {
  std::vector<RunData> out;
  for (const RunData* run : shown_) out.push_back(*run);
  return out;
}

}  // namespace accumlab::ui
