// SPDX-License-Identifier: GPL-3.0-or-later
#include "summary_table.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "accumlab/variance_ratio.h"

namespace accumlab::cli {

namespace {

std::string num(double v, const char* fmt = "%.4g") {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string interval(double ratio, double low, double high) {
  return num(ratio, "%.3g") + "× [" + num(low, "%.3g") + ", " + num(high, "%.3g") + "]";
}

}  // namespace

std::string probeLine(const ProbeRecord& latest, const PooledProbe& pooled, int64_t probes) {
  std::ostringstream out;
  out << "same weights (" << pooled.probes << " of " << probes << " probes pooled, each "
      << latest.repeats << " batches of " << latest.micro_batch << " and of "
      << latest.micro_batch * latest.accum;
  if (latest.pool > 0) out << " from the losses of " << latest.pool << " samples";
  out << "): " << interval(pooled.ratio, pooled.ci_low, pooled.ci_high) << " (90%) · theory "
      << num(pooled.theory, "%g") << (pooled.batch_dependent ? " (BatchNorm: batch-dependent)" : "")
      << " · latest at sample " << latest.samples_seen << ": "
      << interval(latest.ratio, latest.ci_low, latest.ci_high) << "\n";
  return out.str();
}

namespace {

/// The two variance ratios the lab teaches: at fixed weights (the clean experiment, the
/// headline) and across arms (what training shows, which is no test of K).
std::string varianceLines(const RunSummary& summary) {
  std::ostringstream out;
  if (summary.variance_probe) {
    const PooledProbe pooled = summary.variance_probe_pooled
                                   ? *summary.variance_probe_pooled
                                   : poolProbes({*summary.variance_probe}).value();
    out << probeLine(*summary.variance_probe, pooled, summary.variance_probes);
  }
  if (const auto r = armVarianceRatio(summary.arms)) {
    // K is the theory of a ratio at one set of weights (the probe above); the arms train to
    // different weights, so their own ratio is no test of it, and the line says why.
    double loss_no_accum = kNaN, loss_accum = kNaN;
    for (const ArmSummary& a : summary.arms) {
      if (a.arm == ArmKind::kNoAccum) loss_no_accum = a.final_train_loss;
      if (a.arm == ArmKind::kAccum) loss_accum = a.final_train_loss;
    }
    out << "loss variance no-accum / accum, detrended, last " << r->updates
        << " updates: " << interval(r->ci.ratio, r->ci.low, r->ci.high)
        << " (90%) · not a test of K = " << r->theory
        << ": the arms sit at different weights (train loss " << num(loss_no_accum, "%.3g")
        << " vs " << num(loss_accum, "%.3g")
        << ") and no-accum's own updates shake its weights; the probe holds the weights fixed\n";
  }
  return out.str();
}

const ArmSummary* findArm(const RunSummary& summary, ArmKind kind) {
  for (const ArmSummary& a : summary.arms) {
    if (a.arm == kind) return &a;
  }
  return nullptr;
}

}  // namespace

/// Accumulation's memory saving as measured, with what it can and cannot shrink: a small
/// model's ratio near 1 is the truth, not a failure of accumulation.
std::string memoryLine(const RunSummary& summary) {
  const ArmSummary* accum = findArm(summary, ArmKind::kAccum);
  const ArmSummary* big = findArm(summary, ArmKind::kBigBatch);
  if (!accum || !big || accum->peak_tensor_bytes <= 0 || big->peak_tensor_bytes <= 0) return "";
  std::ostringstream out;
  out << "peak tensors accum / big-batch: "
      << num(static_cast<double>(accum->peak_tensor_bytes) /
                 static_cast<double>(big->peak_tensor_bytes),
             "%.2f")
      << " · only the batches and activations shrink with m; the weights, gradients and optimizer "
         "state are the same in every arm, and accumulating also holds a micro-batch's gradient "
         "while it adds it in, so a model whose weights outweigh its activations saves little\n";
  return out.str();
}

/// Text runs: each arm's throughput in target tokens beside its samples (sequences) per second.
std::string tokensLine(const RunSummary& summary) {
  std::ostringstream out;
  for (const ArmSummary& a : summary.arms) {
    if (!std::isfinite(a.tokens_per_s)) continue;
    out << (out.tellp() == 0 ? "tokens/s: " : " · ") << toString(a.arm) << " "
        << num(a.tokens_per_s, "%.0f");
  }
  if (out.tellp() == 0) return "";
  out << " (target tokens: each sequence's bytes and its end; samples/s counts sequences)\n";
  return out.str();
}

/// The gradient checks that were kinks, when there were: float32 rounding at a ReLU's 0, which a
/// reader of "grad check" must not take for accumulation (their float64 repeats agreed).
std::string kinkLine(const RunSummary& summary) {
  const ArmSummary* accum = findArm(summary, ArmKind::kAccum);
  if (!accum || accum->grad_equivalence_kinks <= 0) return "";
  std::ostringstream out;
  const int64_t kinks = accum->grad_equivalence_kinks;
  out << "gradient checks: " << kinks << " of " << accum->grad_equivalence_checks
      << (kinks == 1 ? " was a kink (" : " were kinks (at most ")
      << num(accum->grad_equivalence_largest_kink, "%.2e")
      << " in float32) · float32 rounding put an activation on the other side of a ReLU's 0 in "
         "one of the two passes, so that sample's gradient took another path; repeated in "
         "float64 at the same weights, "
      << (kinks == 1 ? "it agreed" : "they agreed")
      << " to rounding, so accumulation was exact there too; the headline leaves "
      << (kinks == 1 ? "it" : "them") << " out\n";
  return out.str();
}

/// The headline of accum's gradient checks, under the name every place gives it: "gradient
/// check (largest, kinks excluded): 3.04e-07 of 94 checks".
std::string gradCheckLine(const RunSummary& summary) {
  const ArmSummary* accum = findArm(summary, ArmKind::kAccum);
  if (!accum || accum->grad_equivalence_checks <= 0) return "";
  std::ostringstream out;
  out << kGradCheckHeadline << ": ";
  if (std::isnan(accum->grad_equivalence_rel_diff_without_kinks)) {
    out << "every one of its " << accum->grad_equivalence_checks << " checks was a kink";
  } else {
    out << num(accum->grad_equivalence_rel_diff_without_kinks, kGradCheckFormat) << " of "
        << accum->grad_equivalence_checks
        << (accum->grad_equivalence_checks == 1 ? " check" : " checks");
  }
  const int64_t every = summary.info.config.grad_check_every;
  out << " ("
      << (every == 1 ? std::string("every update") : "every " + std::to_string(every) + " updates")
      << " and every irregular window: epoch ends, the first after a change of m or K or a "
         "resume)\n";
  return out.str();
}

/// Each pitfall arm's gradient against the big batch's, in words (pitfallDeviation): "wrong
/// recipe pitfall:sum: ×4.00 the big-batch gradient on full windows (theory: ×4, K)".
std::string pitfallLines(const RunSummary& summary) {
  std::ostringstream out;
  for (const ArmSummary& a : summary.arms) {
    const std::string words = pitfallDeviation(a, summary.info.config.dtype);
    if (!words.empty()) out << "wrong recipe " << toString(a.arm) << ": " << words << '\n';
  }
  return out.str();
}

/// Where accum's and big-batch's weights parted, when they did: a float32 rounding difference
/// that training amplified, which a reader of "traj diff" must not take for accumulation.
std::string trajectoryLine(const RunSummary& summary) {
  const ArmSummary* accum = findArm(summary, ArmKind::kAccum);
  const ArmSummary* big = findArm(summary, ArmKind::kBigBatch);
  // A batch-dependent or stochastic model parts for its own reason, said when the run starts.
  if (!accum || !big || big->trajectories_parted_at_step < 0 || big->batch_dependent ||
      big->stochastic) {
    return "";
  }
  std::ostringstream out;
  const double level = roundingLevel(summary.info.config.dtype);
  const ExperimentConfig& config = summary.info.config;
  // flush-divide-by-K under-scales accum's short windows, which big-batch (one micro-batch a
  // window) takes exactly: the arms part there by design, not by rounding.
  const bool policy = config.window_policy == WindowPolicy::kFlushDivideByK &&
                      accum->grad_equivalence_largest_uneven > level;
  out << "trajectories accum ↔ big-batch parted at update " << big->trajectories_parted_at_step
      << " (beyond the " << num(level, "%.0e") << " of rounding) and end "
      << num(big->equivalence_rel_diff, "%.2e") << " apart · "
      << (policy ? "flush-divide-by-K under-scales accum's windows cut short at epoch ends, "
                   "which big-batch takes whole and exact"
                 : partingCause(config));
  if (accum->grad_equivalence_checks > 0) {
    // The largest check can itself be a kink (one activation on the other side of a ReLU's
    // 0 in one pass); only a largest check at rounding level speaks for every one.
    if (accum->grad_equivalence_rel_diff_without_kinks <= level) {
      out << "; accumulation itself stays exact (" << kGradCheckHeadline << " "
          << num(accum->grad_equivalence_rel_diff_without_kinks, kGradCheckFormat) << ")";
    } else {
      out << "; the gradient checks at equal weights (grad check) test accumulation itself";
    }
  }
  if (summary.info.config.dtype == DType::kFloat32) {
    out << "; --dtype float64 keeps them together far longer";
  }
  out << "\n";
  return out.str();
}

/// An arm's GFLOP/s with its share of the measured ceiling where there is one: "39.0 (73%)".
std::string gflopsCell(const ArmSummary& a) {
  std::string cell = num(a.gflop_per_s, "%.1f");
  if (std::isfinite(a.gflop_per_s) && a.ceiling_gflop_per_s > 0) {
    cell += " (" + num(100.0 * a.gflop_per_s / a.ceiling_gflop_per_s, "%.0f") + "%)";
  }
  return cell;
}

std::string formatSummaryTable(const RunSummary& summary) {
  const std::vector<std::string> header = {"arm",          "status",   "m x K",      "steps",
                                           "train loss",   "val loss", "val acc",    "loss var",
                                           "trΣ/B_eff",    "B_simple", "samples/s",  "GFLOP/s",
                                           "peak tensors", "peak RSS", "grad check", "traj diff"};
  std::vector<std::vector<std::string>> rows = {header};
  for (const ArmSummary& a : summary.arms) {
    rows.push_back(
        {toString(a.arm), toString(a.status), armSizesText(a), std::to_string(a.steps),
         num(a.final_train_loss), num(a.val_loss), num(a.val_accuracy * 100, "%.2f%%"),
         num(a.loss_variance_detrended), num(a.noise_per_update),
         num(a.b_simple > 0 ? a.b_simple : kNaN, "%.1f"), num(a.samples_per_s, "%.0f"),
         gflopsCell(a),
         a.peak_tensor_bytes >= 0 ? formatBytes(a.peak_tensor_bytes, ByteUnit::kMiB) : "-",
         formatBytes(a.peak_memory_bytes, ByteUnit::kMiB),
         num(a.grad_equivalence_rel_diff_without_kinks, kGradCheckFormat),
         num(a.equivalence_rel_diff, "%.2e")});
  }
  // Column widths in characters (UTF-8 aware for the Σ in the header).
  auto width = [](const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  std::vector<size_t> w(header.size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], width(row[i]));
  }
  std::ostringstream out;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < rows[r].size(); ++i) {
      out << rows[r][i]
          << std::string(w[i] - width(rows[r][i]) + (i + 1 < rows[r].size() ? 2 : 0), ' ');
    }
    out << '\n';
  }
  for (const ArmSummary& a : summary.arms) {
    if (!a.message.empty()) out << toString(a.arm) << ": " << a.message << '\n';
  }
  out << varianceLines(summary) << tokensLine(summary) << memoryLine(summary)
      << gradCheckLine(summary) << kinkLine(summary) << pitfallLines(summary)
      << trajectoryLine(summary);
  out << "loss var: detrended variance of the per-update loss (successive differences) over "
         "the last "
      << summary.info.config.variance_window << " updates; grad check: the " << kGradCheckHeadline
      << ", the largest relative difference between accum's accumulated gradient and the same "
         "window as one big batch, at the same weights ("
      << (summary.info.config.grad_check_every > 0
              ? "every " + std::to_string(summary.info.config.grad_check_every) +
                    " steps and every irregular window"
              : std::string("off: --grad-check-every 0"))
      << "); traj diff: relative weight difference between accum and big-batch "
         "at the end (their trajectories); "
         "B_simple: trΣ/|G|² of the smoothed estimates, - where one is not above 0 (the noise "
         "swamps the mean gradient); GFLOP/s: samples/s times the model's floating-point "
         "operations per sample, forward and backward, counted from its layers' shapes (- "
         "where the model does not count them: a TorchScript file), and in brackets its share "
         "of the measured ceiling: the forward of the model's largest linear layer (an MLP) or "
         "first convolution (the CNN) alone at the arm's m, "
         "timed before training on this machine (ceiling_gflop_per_s in --json); peak "
         "tensors: the most bytes of the arm's own tensors (weights, gradients, optimizer "
         "state, batches, activations) alive in one window; peak RSS: the whole process's "
         "peak resident memory, shared by all arms\n";
  return out.str();
}

}  // namespace accumlab::cli
