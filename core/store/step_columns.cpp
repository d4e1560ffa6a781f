// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/step_columns.h"

#include <cmath>

namespace accumlab::store {

namespace {

StepColumn real(const char* name, double StepRecord::*member, int since = 1) {
  return {name, member, nullptr, nullptr, since};
}
StepColumn integer(const char* name, int64_t StepRecord::*member, int since = 1) {
  return {name, nullptr, member, nullptr, since};
}
StepColumn flag(const char* name, bool StepRecord::*member, int since) {
  return {name, nullptr, nullptr, member, since};
}

}  // namespace

const std::vector<StepColumn>& stepColumns() {
  // One list drives the table definition, the insert, the select and both exports, so a
  // new StepRecord field needs one line here with the schema version that adds it.
  static const std::vector<StepColumn> kColumns = {
      integer("step", &StepRecord::step),
      integer("samples_seen", &StepRecord::samples_seen),
      real("wall_ms", &StepRecord::wall_ms),
      integer("micro_batch", &StepRecord::micro_batch),
      integer("accum", &StepRecord::accum),
      integer("window_samples", &StepRecord::window_samples),
      real("loss", &StepRecord::loss),
      real("mb_loss_mean", &StepRecord::mb_loss_mean),
      real("mb_loss_var", &StepRecord::mb_loss_var),
      real("grad_norm", &StepRecord::grad_norm),
      real("lr", &StepRecord::lr),
      real("samples_per_s", &StepRecord::samples_per_s),
      integer("memory_bytes", &StepRecord::memory_bytes),
      real("g_small_sq", &StepRecord::g_small_sq),
      real("g_big_sq", &StepRecord::g_big_sq),
      real("b_small", &StepRecord::b_small),
      real("b_big", &StepRecord::b_big),
      real("trace_sigma_est", &StepRecord::trace_sigma_est),
      real("g_sq_est", &StepRecord::g_sq_est),
      real("trace_sigma_ema", &StepRecord::trace_sigma_ema),
      real("g_sq_ema", &StepRecord::g_sq_ema),
      real("b_simple", &StepRecord::b_simple),
      real("noise_per_update", &StepRecord::noise_per_update),
      real("loss_var_rolling", &StepRecord::loss_var_rolling),
      real("weight_rel_diff", &StepRecord::weight_rel_diff),
      real("grad_norm_applied", &StepRecord::grad_norm_applied, 3),
      flag("probe", &StepRecord::probe, 3),
      real("grad_equiv", &StepRecord::grad_equiv, 3),
      real("loss_var_detrended", &StepRecord::loss_var_detrended, 4),
      integer("loss_var_count", &StepRecord::loss_var_count, 4),
      integer("peak_tensor_bytes", &StepRecord::peak_tensor_bytes, 5),
      real("allreduce_ms", &StepRecord::allreduce_ms, 8),
      real("grad_equiv_f64", &StepRecord::grad_equiv_f64, 9),
      real("tokens_per_s", &StepRecord::tokens_per_s, 11),
  };
  return kColumns;
}

double columnValue(const StepRecord& record, const StepColumn& column) {
  if (column.real) return record.*column.real;
  if (column.flag) return record.*column.flag ? 1.0 : 0.0;
  return static_cast<double>(record.*column.integer);
}

void setColumnValue(StepRecord& record, const StepColumn& column, double value) {
  if (column.real) {
    record.*column.real = value;
  } else if (column.flag) {
    record.*column.flag = std::isfinite(value) && value != 0.0;
  } else {
    // A missing value is the field's default (0, or -1 for "not measured").
    record.*column.integer =
        std::isfinite(value) ? std::llround(value) : StepRecord{}.*column.integer;
  }
}

}  // namespace accumlab::store
