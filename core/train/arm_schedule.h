// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "train/arm_run.h"

namespace accumlab {

/// A change of m and K scheduled for every arm at one sample position.
struct SizeChange {
  int64_t m = 0;
  int64_t k = 0;
  int64_t at = 0;  ///< the first window boundary that every running arm reaches
};

/// The arms of a run on the sample clock: which trains next (the one furthest behind, ties in
/// arm order), the window boundaries they share, and the experiment's m and K with a change
/// that lands for every arm at one such boundary. Used by the run's thread only.
class ArmSchedule {
 public:
  /// Adds an arm (in the config's canonical order).
  void add(std::unique_ptr<ArmRun> arm) { arms_.push_back(std::move(arm)); }
  const std::vector<std::unique_ptr<ArmRun>>& arms() const { return arms_; }
  /// The arm of this kind, or null.
  ArmRun* find(ArmKind kind) const;
  /// The running arm furthest behind, or null once every arm has ended.
  ArmRun* next() const;

  /// The first position at or after `at` that is a window boundary of every running arm.
  int64_t boundaryOfAll(int64_t at) const;
  /// The first boundary of every running arm at or past the one furthest ahead.
  int64_t commonBoundary() const;
  /// Where the shortest round of parallel training ends: the first common boundary past the
  /// arm furthest ahead (or past their common position, when they are level).
  int64_t roundHorizon() const;

  /// The experiment's current sizes (every arm switches at pending()->at).
  int64_t m() const { return m_; }
  int64_t k() const { return k_; }
  void setSizes(int64_t m, int64_t k) {
    m_ = m;
    k_ = k;
  }
  const std::optional<SizeChange>& pending() const { return pending_; }
  /// Schedules m and K for every running arm at their next common boundary; returns it.
  const SizeChange& change(int64_t m, int64_t k);
  /// Switches `arm` to the pending sizes once it has reached their position; the change has
  /// landed when every running arm has switched.
  void applyDue(ArmRun& arm);

  /// The sizes and the pending change in a run checkpoint (RunCheckpoint); each arm saves its
  /// own part. load throws InputError naming `path`.
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive, const std::string& path);

 private:
  std::vector<std::unique_ptr<ArmRun>> arms_;
  int64_t m_ = 0;
  int64_t k_ = 0;
  std::optional<SizeChange> pending_;
};

}  // namespace accumlab
