// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/run_store.h"
#include "accumlab/sweep.h"

namespace accumlab {

/// One stored sweep (a grid of runs): a row of `list --sweeps`.
struct SweepRow {
  int64_t id = 0;
  std::string name;
  std::string created_at;  ///< ISO 8601 UTC
  std::string spec_json;   ///< the base config, grid, target and jobs, as the sweep stored them
  int64_t points = 0;
  int64_t done = 0;     ///< points whose run has ended (reached, missed, diverged, failed)
  int64_t reached = 0;  ///< points that reached the target
};

/// A sweep and its points, in grid order.
struct SweepDetail {
  SweepRow row;
  std::vector<SweepPoint> points;
};

/// The sweeps of a run store (docs/store.md, tables `sweeps` and `sweep_points`), read and
/// written on the RunStore's connection: the same thread rule, the same InputErrors.
class SweepStore {
 public:
  explicit SweepStore(RunStore& store);

  /// Stores a new sweep (its spec as sweepSpecToJson writes it) with its points; returns its id.
  int64_t create(const std::string& name, const SweepSpec& spec,
                 const std::vector<SweepPoint>& points);
  /// Every sweep, newest first.
  std::vector<SweepRow> list();
  /// One sweep with its points; throws InputError when there is no such sweep.
  SweepDetail get(int64_t sweep_id);
  /// Writes a point's run, status and outcome (by its index).
  void updatePoint(int64_t sweep_id, const SweepPoint& point);

 private:
  store::Connection& conn_;
};

}  // namespace accumlab
