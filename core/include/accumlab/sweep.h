#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/records.h"
#include "accumlab/sweep_fit.h"

namespace accumlab {

/// What every point of a sweep trains towards.
struct SweepTarget {
  enum class Kind { kLoss, kValAccuracy };
  Kind kind = Kind::kLoss;
  /// kLoss: the debiased-EMA training loss at or below this; kValAccuracy: the validation
  /// accuracy (a fraction) at or above it.
  double value = kNaN;
  double smoothing = 0.9;  ///< s of the debiased EMA of the training loss
};

/// The target a sweep's stored spec names (`{"target": {"kind", "value", "smoothing"}}`).
SweepTarget sweepTargetFromSpec(const std::string& spec_json);
/// "smoothed training loss ≤ 0.5" or "validation accuracy ≥ 0.8".
std::string describeTarget(const SweepTarget& target);

/// One grid point: the sizes and LR it trains with, and what came of it.
struct SweepPoint {
  int64_t index = 0;
  int64_t micro_batch = 0;
  int64_t accum = 0;
  double lr = kNaN;
  int64_t run_id = 0;  ///< the stored run of its arm; 0 before it started
  /// pending, running, reached, missed (trained its budget without reaching the target),
  /// diverged, failed, interrupted.
  std::string status = "pending";
  double steps_to_target = kNaN;    ///< interpolated between the records around the crossing
  double samples_to_target = kNaN;
  double loss_variance = kNaN;      ///< detrended per-update loss variance at the end
  int64_t loss_variance_count = 0;  ///< updates it is taken over
  double variance_probe_ratio = kNaN;  ///< the last fixed-weight probe's ratio, if any
  int64_t peak_tensor_bytes = -1;
  double samples_per_s = kNaN;
  double b_simple = kNaN;           ///< the run's B_simple at the crossing (else at the end)
  double val_accuracy = kNaN;       ///< at the end
  int64_t steps = 0;                ///< optimizer steps taken
  std::string message;              ///< why it failed or diverged

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
