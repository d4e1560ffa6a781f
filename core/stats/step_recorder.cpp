// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/step_recorder.h"

#include <cmath>

namespace accumlab {

StepRecorder::StepRecorder(double noise_ema, int64_t variance_window)
    : noise_(noise_ema), losses_(variance_window) {}

void StepRecorder::complete(StepRecord& record) {
  if (!std::isnan(record.b_small) && !std::isnan(record.b_big)) {
    const NoiseSample s =
        estimateNoise(record.b_small, record.g_small_sq, record.b_big, record.g_big_sq);
    record.trace_sigma_est = s.trace_sigma;
    record.g_sq_est = s.g_sq;
    noise_.add(s);
  }
  if (!noise_.empty()) {
    record.trace_sigma_ema = noise_.traceSigma();
    record.g_sq_ema = noise_.gSq();
    record.b_simple = noise_.bSimple();
    // The noise of this very update: a short window at an epoch end is noisier.
    record.noise_per_update = noise_.noisePerUpdate(static_cast<double>(record.window_samples));
  }
  losses_.add(record.loss);
  record.loss_var_rolling = losses_.variance();
  record.loss_var_detrended = losses_.detrendedVariance();
  record.loss_var_count = losses_.size();
}

double StepRecorder::bSimple() const { return noise_.empty() ? kNaN : noise_.bSimple(); }

double StepRecorder::noisePerUpdate(int64_t effective_batch) const {
  return noise_.empty() ? kNaN : noise_.noisePerUpdate(static_cast<double>(effective_batch));
}

StepRecorder::State StepRecorder::state() const {
  State st;
  st.trace = noise_.traceEma().raw();
  st.trace_n = noise_.traceEma().count();
  st.g_sq = noise_.gSqEma().raw();
  st.g_sq_n = noise_.gSqEma().count();
  st.losses = losses_.values();
  return st;
}

void StepRecorder::restore(const State& st) {
  noise_.traceEma().restore(st.trace, st.trace_n);
  noise_.gSqEma().restore(st.g_sq, st.g_sq_n);
  losses_.restore(st.losses);
}

}  // namespace accumlab
