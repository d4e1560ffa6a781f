// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The figures a lesson's check may measure (docs/lessons.md), in one table that the lesson
// reader checks names against and the verdict reads values by: an arm's figure from its
// summary, the run's pooled probe, or a figure of the sweep. Private to core/lessons.
#include <string>
#include <vector>

#include "accumlab/records.h"

namespace accumlab::lessons {

enum class MetricSource { kArm, kRun, kSweep };

struct LessonMetric {
  const char* name;
  MetricSource source;
  /// An arm's figure from its summary (kArm only); NaN where the run did not measure it.
  double (*arm_value)(const ArmSummary&);
};

inline const std::vector<LessonMetric>& lessonMetrics() {
  using S = MetricSource;
  static const std::vector<LessonMetric> metrics = {
      {"loss_variance", S::kArm, [](const ArmSummary& a) { return a.loss_variance_detrended; }},
      {"loss_variance_plain", S::kArm, [](const ArmSummary& a) { return a.loss_variance; }},
      {"final_train_loss", S::kArm, [](const ArmSummary& a) { return a.final_train_loss; }},
      {"val_loss", S::kArm, [](const ArmSummary& a) { return a.val_loss; }},
      {"val_accuracy", S::kArm, [](const ArmSummary& a) { return a.val_accuracy; }},
      {"samples_per_s", S::kArm, [](const ArmSummary& a) { return a.samples_per_s; }},
      {"peak_tensor_bytes", S::kArm,
       [](const ArmSummary& a) {
         return a.peak_tensor_bytes >= 0 ? static_cast<double>(a.peak_tensor_bytes) : kNaN;
       }},
      {"noise_per_update", S::kArm, [](const ArmSummary& a) { return a.noise_per_update; }},
      {"b_simple", S::kArm, [](const ArmSummary& a) { return a.b_simple; }},
      {"steps", S::kArm, [](const ArmSummary& a) { return static_cast<double>(a.steps); }},
      // A kink is float32 rounding at a ReLU's 0, not accumulation: its float64 repeat agreed.
      {"grad_equivalence", S::kArm,
       [](const ArmSummary& a) { return a.grad_equivalence_rel_diff_without_kinks; }},
      // The typical check of full windows (K whole micro-batches), which a window policy
      // leaves exact: only the short window at an epoch end differs.
      {"grad_equivalence_full", S::kArm,
       [](const ArmSummary& a) { return a.grad_equivalence_mean_full; }},
      {"weight_equivalence", S::kArm, [](const ArmSummary& a) { return a.equivalence_rel_diff; }},
      {"probe_ratio", S::kRun, nullptr},
      {"sweep_b_crit", S::kSweep, nullptr},
      {"sweep_b_simple", S::kSweep, nullptr},
      {"sweep_variance_slope", S::kSweep, nullptr},
  };
  return metrics;
}

/// The metric named `name`, or nullptr.
inline const LessonMetric* findLessonMetric(const std::string& name) {
  for (const LessonMetric& m : lessonMetrics()) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

/// The names of one source's metrics, joined by ", " (for the sentences that list them).
inline std::string lessonMetricNames(MetricSource source) {
  std::string out;
  for (const LessonMetric& m : lessonMetrics()) {
    if (m.source == source) out += (out.empty() ? "" : ", ") + std::string(m.name);
  }
  return out;
}

}  // namespace accumlab::lessons
