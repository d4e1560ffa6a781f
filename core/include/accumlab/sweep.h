// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/records.h"
#include "accumlab/sweep_fit.h"
#include "accumlab/sweep_spec.h"

namespace accumlab {

/// What became of a sweep point. Stored, printed and sent in progress lines by the names
/// toString gives ("pending", "running", "reached", …): they are an interface.
enum class SweepStatus {
  kPending,      ///< not started
  kRunning,      ///< its run is training
  kReached,      ///< its run reached the target
  kMissed,       ///< trained its budget without reaching the target
  kDiverged,     ///< its loss became non-finite
  kFailed,       ///< its run could not train (see the point's message)
  kInterrupted,  ///< stopped before it ended (Ctrl-C, a dead process); resume trains it again
};
template <>
inline constexpr Names<SweepStatus> kNames<SweepStatus>{
    "sweep point status", "pending running reached missed diverged failed interrupted"};

/// The statuses' stored names, e.g. "reached" (toString in accumlab/names.h).
/// The status named `name`; throws InputError naming the accepted names.
inline SweepStatus parseSweepStatus(const std::string& name) {
  return kNames<SweepStatus>.parse(name);
}

/// One grid point: the sizes and LR it trains with, and what came of it.
struct SweepPoint {
  int64_t index = 0;
  int64_t micro_batch = 0;
  int64_t accum = 0;
  double lr = kNaN;
  int64_t run_id = 0;  ///< the stored run of its arm; 0 before it started
  SweepStatus status = SweepStatus::kPending;
  double steps_to_target = kNaN;  ///< interpolated between the records around the crossing
  double samples_to_target = kNaN;
  double loss_variance = kNaN;         ///< detrended per-update loss variance at the end
  int64_t loss_variance_count = 0;     ///< updates it is taken over
  double variance_probe_ratio = kNaN;  ///< the last fixed-weight probe's ratio, if any
  int64_t peak_tensor_bytes = -1;
  double samples_per_s = kNaN;
  double b_simple = kNaN;      ///< the run's B_simple at the crossing (else at the end)
  double val_accuracy = kNaN;  ///< at the end
  int64_t steps = 0;           ///< optimizer steps taken
  std::string message;         ///< why it failed or diverged

  int64_t effectiveBatch() const { return micro_batch * accum; }
  /// A point whose run has ended (it is not run again on resume).
  bool done() const;
};

/// Fills in a point's outcome from its run: the arm's summary and stored series.
void measurePoint(SweepPoint& point, const ArmSummary& summary,
                  const std::vector<StepRecord>& steps, const std::vector<EvalRecord>& evals,
                  const std::vector<ProbeRecord>& probes, const SweepTarget& target);

/// The sweep's theory against its points.
struct SweepAnalysis {
  /// Steps to target against B (the best LR of each B when several were tried).
  std::optional<StepsFit> steps_fit;
  std::string steps_fit_error;  ///< why there is no fit, e.g. fewer than 3 points reached it
  /// Per-update loss variance against B (log-log; theory −1), over the finished points.
  std::optional<SlopeFit> variance_slope;
  std::string variance_slope_error;
  double b_simple = kNaN;  ///< median of the reached points' B_simple near the target
  /// The points the steps fit used: for each B, the reached point of fewest steps.
  std::vector<int64_t> best_points;
};

SweepAnalysis analyzeSweep(const std::vector<SweepPoint>& points);

/// The point as a JSON object text (the fields above, NaN as null).
std::string sweepPointToJson(const SweepPoint& point);
/// Reads sweepPointToJson's fields into `point` (missing fields keep their values).
void sweepPointFromJson(const std::string& text, SweepPoint& point);

}  // namespace accumlab
