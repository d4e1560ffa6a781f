// SPDX-License-Identifier: GPL-3.0-or-later
#include "records/record_fields.h"

namespace accumlab {

const std::vector<RecordField<StepRecord>>& stepFields() {
  using S = StepRecord;
  static const std::vector<RecordField<S>> kFields = {
      integerField("step", &S::step),
      integerField("samples_seen", &S::samples_seen),
      realField("wall_ms", &S::wall_ms),
      integerField("micro_batch", &S::micro_batch),
      integerField("accum", &S::accum),
      integerField("window_samples", &S::window_samples),
      realField("loss", &S::loss),
      realField("mb_loss_mean", &S::mb_loss_mean),
      realField("mb_loss_var", &S::mb_loss_var),
      realField("grad_norm", &S::grad_norm),
      realField("lr", &S::lr),
      realField("samples_per_s", &S::samples_per_s),
      integerField("memory_bytes", &S::memory_bytes),
      realField("g_small_sq", &S::g_small_sq),
      realField("g_big_sq", &S::g_big_sq),
      realField("b_small", &S::b_small),
      realField("b_big", &S::b_big),
      realField("trace_sigma_est", &S::trace_sigma_est),
      realField("g_sq_est", &S::g_sq_est),
      realField("trace_sigma_ema", &S::trace_sigma_ema),
      realField("g_sq_ema", &S::g_sq_ema),
      realField("b_simple", &S::b_simple),
      realField("noise_per_update", &S::noise_per_update),
      realField("loss_var_rolling", &S::loss_var_rolling),
      realField("weight_rel_diff", &S::weight_rel_diff),
      realField("grad_norm_applied", &S::grad_norm_applied, 3),
      flagField("probe", &S::probe, 3),
      realField("grad_equiv", &S::grad_equiv, 3),
      realField("loss_var_detrended", &S::loss_var_detrended, 4),
      integerField("loss_var_count", &S::loss_var_count, 4),
      integerField("peak_tensor_bytes", &S::peak_tensor_bytes, 5),
      realField("allreduce_ms", &S::allreduce_ms, 8),
      realField("grad_equiv_f64", &S::grad_equiv_f64, 9),
      realField("tokens_per_s", &S::tokens_per_s, 11),
  };
  return kFields;
}

const std::vector<RecordField<EvalRecord>>& evalFields() {
  using E = EvalRecord;
  static const std::vector<RecordField<E>> kFields = {
      integerField("step", &E::step),      integerField("samples_seen", &E::samples_seen),
      realField("wall_ms", &E::wall_ms),   realField("loss", &E::loss),
      realField("accuracy", &E::accuracy),
  };
  return kFields;
}

const std::vector<RecordField<ProbeRecord>>& probeFields() {
  using P = ProbeRecord;
  // Version 4 made the table; the columns of each later version are added by its migration.
  static const std::vector<RecordField<P>> kFields = {
      integerField("step", &P::step, 4),
      integerField("samples_seen", &P::samples_seen, 4),
      realField("wall_ms", &P::wall_ms, 4),
      integerField("micro_batch", &P::micro_batch, 4),
      integerField("accum", &P::accum, 4),
      integerField("repeats", &P::repeats, 4),
      realField("var_micro", &P::var_micro, 4),
      realField("var_window", &P::var_window, 4),
      realField("ratio", &P::ratio, 4),
      realField("ci_low", &P::ci_low, 4),
      realField("ci_high", &P::ci_high, 4),
      realField("theory", &P::theory, 4),
      flagField("batch_dependent", &P::batch_dependent, 4),
      integerField("pool", &P::pool, 10),
      realField("kurtosis", &P::kurtosis, 12),
  };
  return kFields;
}

const std::vector<RecordField<ArmSummary>>& armSummaryFields() {
  using A = ArmSummary;
  static const std::vector<RecordField<A>> kFields = {
      integerField("micro_batch", &A::micro_batch),
      integerField("accum", &A::accum),
      integerField("memory_piece", &A::memory_piece),
      integerField("steps", &A::steps),
      integerField("samples_seen", &A::samples_seen),
      realField("final_train_loss", &A::final_train_loss),
      realField("val_loss", &A::val_loss),
      realField("val_accuracy", &A::val_accuracy),
      realField("loss_variance", &A::loss_variance),
      realField("loss_variance_detrended", &A::loss_variance_detrended),
      integerField("loss_variance_count", &A::loss_variance_count),
      realField("noise_per_update", &A::noise_per_update),
      realField("b_simple", &A::b_simple),
      realField("samples_per_s", &A::samples_per_s),
      realField("tokens_per_s", &A::tokens_per_s),
      realField("flops_per_sample", &A::flops_per_sample),
      realField("gflop_per_s", &A::gflop_per_s),
      realField("ceiling_gflop_per_s", &A::ceiling_gflop_per_s),
      integerField("peak_memory_bytes", &A::peak_memory_bytes),
      integerField("peak_tensor_bytes", &A::peak_tensor_bytes, 1, true),
      realField("equivalence_rel_diff", &A::equivalence_rel_diff),
      integerField("trajectories_parted_at_step", &A::trajectories_parted_at_step),
      realField("grad_equivalence_rel_diff", &A::grad_equivalence_rel_diff),
      integerField("grad_equivalence_checks", &A::grad_equivalence_checks),
      integerField("grad_equivalence_kinks", &A::grad_equivalence_kinks),
      realField("grad_equivalence_largest_kink", &A::grad_equivalence_largest_kink),
      realField("grad_equivalence_rel_diff_without_kinks",
                &A::grad_equivalence_rel_diff_without_kinks),
      realField("grad_equivalence_mean_full", &A::grad_equivalence_mean_full),
      integerField("grad_equivalence_uneven_checks", &A::grad_equivalence_uneven_checks),
      realField("grad_equivalence_largest_uneven", &A::grad_equivalence_largest_uneven),
      realField("grad_equivalence_first", &A::grad_equivalence_first),
      realField("grad_equivalence_last", &A::grad_equivalence_last),
      integerField("diverged_at_step", &A::diverged_at_step, 1, true),
      realField("wall_s", &A::wall_s),
      flagField("batch_dependent", &A::batch_dependent),
      flagField("stochastic", &A::stochastic),
      realField("allreduce_s", &A::allreduce_s),
  };
  return kFields;
}

const std::vector<RecordField<PooledProbe>>& pooledProbeFields() {
  using P = PooledProbe;
  static const std::vector<RecordField<P>> kFields = {
      realField("ratio", &P::ratio),      realField("ci_low", &P::ci_low),
      realField("ci_high", &P::ci_high),  realField("theory", &P::theory),
      integerField("pooled", &P::probes), integerField("micro_batch", &P::micro_batch),
      integerField("accum", &P::accum),   flagField("batch_dependent", &P::batch_dependent),
  };
  return kFields;
}

const std::vector<RecordField<GradCheckTally>>& gradCheckFields() {
  using G = GradCheckTally;
  static const std::vector<RecordField<G>> kFields = {
      integerField("grad_checks", &G::checks),
      integerField("grad_kinks", &G::kinks),
      realField("max_grad_kink", &G::max_kink),
      realField("max_grad_equiv_without_kinks", &G::max_without_kinks),
      integerField("grad_uneven_checks", &G::uneven_checks),
      realField("max_grad_equiv_uneven", &G::max_uneven),
      realField("sum_grad_equiv_full", &G::sum_full),
      realField("first_grad_equiv", &G::first),
      realField("last_grad_equiv", &G::last),
  };
  return kFields;
}

}  // namespace accumlab
