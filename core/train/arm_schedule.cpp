// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/arm_schedule.h"

#include <algorithm>

#include "train/state_archive.h"

namespace accumlab {

ArmRun* ArmSchedule::find(ArmKind kind) const {
  for (const auto& arm : arms_) {
    if (arm->stepper->kind() == kind) return arm.get();
  }
  return nullptr;
}

ArmRun* ArmSchedule::next() const {
  ArmRun* best = nullptr;
  for (const auto& arm : arms_) {
    if (arm->status != ArmStatus::kRunning) continue;
    if (!best || arm->stepper->samplesSeen() < best->stepper->samplesSeen()) best = arm.get();
  }
  return best;
}

int64_t ArmSchedule::boundaryOfAll(int64_t at) const {
  // Every arm's windows are m·K or m long and restart at the same epoch ends, so their
  // boundaries nest; iterate to the first position that is a boundary of all of them.
  for (;;) {
    int64_t next = at;
    for (const auto& arm : arms_) {
      if (arm->status == ArmStatus::kRunning) {
        next = std::max(next, arm->stepper->boundaryAtOrAfter(at));
      }
    }
    if (next == at) return at;
    at = next;
  }
}

int64_t ArmSchedule::commonBoundary() const {
  int64_t at = 0;
  for (const auto& arm : arms_) {
    if (arm->status == ArmStatus::kRunning) at = std::max(at, arm->stepper->samplesSeen());
  }
  return boundaryOfAll(at);
}

int64_t ArmSchedule::roundHorizon() const {
  int64_t at = 0;
  bool level = true;
  bool first = true;
  for (const auto& arm : arms_) {
    if (arm->status != ArmStatus::kRunning) continue;
    const int64_t seen = arm->stepper->samplesSeen();
    if (!first && seen != at) level = false;
    at = first ? seen : std::max(at, seen);
    first = false;
  }
  return boundaryOfAll(level ? at + 1 : at);  // all at one boundary: the next one
}

const SizeChange& ArmSchedule::change(int64_t m, int64_t k) {
  pending_ = SizeChange{m, k, commonBoundary()};
  for (auto& arm : arms_) arm->awaiting_change = arm->status == ArmStatus::kRunning;
  return *pending_;
}

void ArmSchedule::applyDue(ArmRun& arm) {
  if (!pending_ || !arm.awaiting_change || arm.stepper->samplesSeen() < pending_->at) return;
  arm.stepper->setSizes(pending_->m, pending_->k);
  arm.awaiting_change = false;
  for (const auto& a : arms_) {
    if (a->status == ArmStatus::kRunning && a->awaiting_change) return;
  }
  m_ = pending_->m;
  k_ = pending_->k;
  pending_.reset();
}

void ArmSchedule::save(torch::serialize::OutputArchive& a) const {
  putInt(a, "m", m_);
  putInt(a, "k", k_);
  putInt(a, "pending.has", pending_ ? 1 : 0);
  putInt(a, "pending.m", pending_ ? pending_->m : 0);
  putInt(a, "pending.k", pending_ ? pending_->k : 0);
  putInt(a, "pending.at", pending_ ? pending_->at : 0);
}

void ArmSchedule::load(torch::serialize::InputArchive& a, const std::string& path) {
  m_ = getInt(a, "m", path);
  k_ = getInt(a, "k", path);
  pending_.reset();
  if (getInt(a, "pending.has", path) != 0) {
    pending_ = SizeChange{getInt(a, "pending.m", path), getInt(a, "pending.k", path),
                          getInt(a, "pending.at", path)};
  }
}

}  // namespace accumlab
