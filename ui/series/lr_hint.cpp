// SPDX-License-Identifier: GPL-3.0-or-later
#include "series/lr_hint.h"

#include <QObject>
#include <cmath>

namespace accumlab::ui {

namespace {

constexpr int64_t kMinAccum = 4;
constexpr double kLagFactor = 1.15;

/// Mean loss of `arm`'s steps whose samples_seen lies in (from, to].
double meanLoss(const ArmSeries& arm, int64_t from, int64_t to) {
  double sum = 0;
  int n = 0;
  for (auto it = arm.steps.rbegin(); it != arm.steps.rend() && it->samples_seen > from; ++it) {
    if (it->samples_seen <= to && std::isfinite(it->loss)) {
      sum += it->loss;
      ++n;
    }
  }
  return n > 0 ? sum / n : NAN;
}

}  // namespace

QString lrScalingHint(const RunData& run) {
  const OptimizerConfig& opt = run.info.config.optimizer;
  const ArmSeries* accum = run.find(ArmKind::kAccum);
  const ArmSeries* small = run.find(ArmKind::kNoAccum);
  if (opt.scaling != LrScaling::kNone || !accum || !small) return {};
  if (accum->steps.size() < kHintMinUpdates) return {};
  const int64_t k = accum->steps.back().accum;
  if (k < kMinAccum) return {};
  const size_t window = kHintMinUpdates / 3;
  const int64_t to = accum->steps.back().samples_seen;
  const int64_t from = accum->steps[accum->steps.size() - window - 1].samples_seen;
  if (small->steps.empty() || small->steps.back().samples_seen < to) return {};
  const double lagging = meanLoss(*accum, from, to);
  const double baseline = meanLoss(*small, from, to);
  if (!(lagging > kLagFactor * baseline)) return {};
  return QObject::tr(
             "accum lags no-accum (loss %1 vs %2): try LR scaling linear (×%3) or sqrt (×%4); "
             "with K = %3 it takes %3× fewer steps at the same LR.")
      .arg(lagging, 0, 'g', 3)
      .arg(baseline, 0, 'g', 3)
      .arg(k)
      .arg(std::sqrt(static_cast<double>(k)), 0, 'g', 3);
}

}  // namespace accumlab::ui
