// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/names.h"

namespace accumlab {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class ArmStatus { kRunning, kFinished, kStopped, kDiverged, kFailed, kInterrupted };
template <>
inline constexpr Names<ArmStatus> kNames<ArmStatus>{
    "run status", "running finished stopped diverged failed interrupted"};
inline ArmStatus parseArmStatus(const std::string& s) { return kNames<ArmStatus>.parse(s); }

/// One optimizer step of one arm (docs/measurements.md). Quantities that do not apply are NaN.
struct StepRecord {
  ArmKind arm = ArmKind::kNoAccum;
  int64_t step = 0;                 ///< optimizer steps taken by this arm, 1-based
  int64_t samples_seen = 0;         ///< samples consumed by this arm so far
  double wall_ms = 0;               ///< since the start of training
  int64_t micro_batch = 0;          ///< m of this window
  int64_t accum = 0;                ///< micro-batches in this window
  int64_t window_samples = 0;       ///< samples in this window
  double loss = kNaN;               ///< sample-weighted mean loss of the window
  double mb_loss_mean = kNaN;       ///< mean of the micro-batch mean losses
  double mb_loss_var = kNaN;        ///< their variance (0 for a single micro-batch)
  double grad_norm = kNaN;          ///< norm of the accumulated gradient, before clipping
  double grad_norm_applied = kNaN;  ///< norm of the gradient the optimizer applied (clipped)
  double lr = kNaN;
  double samples_per_s = kNaN;  ///< this arm's training throughput so far
  double tokens_per_s = kNaN;   ///< text: target tokens trained per second so far; NaN otherwise
  int64_t memory_bytes = 0;     ///< CUDA allocator peak, or process RSS on CPU
  /// Peak bytes of tensors alive during this arm's window (forward, backward, step);
  /// -1 when not measured.
  int64_t peak_tensor_bytes = -1;
  double g_small_sq = kNaN;        ///< mean |g_i|² over the micro-batches (B_small)
  double g_big_sq = kNaN;          ///< |G|² of the window gradient (B_big)
  double b_small = kNaN;           ///< samples per small-batch gradient
  double b_big = kNaN;             ///< samples per big-batch gradient
  double trace_sigma_est = kNaN;   ///< unbiased trΣ estimate of this step
  double g_sq_est = kNaN;          ///< unbiased |G|² estimate of this step
  double trace_sigma_ema = kNaN;   ///< debiased EMA of trace_sigma_est
  double g_sq_ema = kNaN;          ///< debiased EMA of g_sq_est
  double b_simple = kNaN;          ///< trace_sigma_ema / g_sq_ema
  double noise_per_update = kNaN;  ///< trace_sigma_ema / B_eff: noise of this arm's update
  double loss_var_rolling = kNaN;  ///< variance of `loss` over the last W updates
  /// Detrended variance of `loss` over the last W updates: the mean square successive
  /// difference Σ(ℓ_t − ℓ_{t−1})² / (2(n−1)), blind to a slow trend inside the window.
  double loss_var_detrended = kNaN;
  int64_t loss_var_count = 0;     ///< n: updates the two variances above are taken over
  double weight_rel_diff = kNaN;  ///< big-batch arm: max relative weight difference to accum
  /// A K = 1 arm's noise-probe window: its one micro-batch ran as two halves to measure
  /// gradient noise (same update); the halves are not micro-batches of the update.
  bool probe = false;
  /// Accum arm, every grad_check_every-th step and every irregular window (short or at an
  /// epoch end, the first after a change of m or K or a resume): |g_accumulated − g_big| /
  /// |g_big| over all parameters, where g_big is the same window's gradient computed as one big
  /// batch at the same weights. NaN on unchecked steps.
  double grad_equiv = kNaN;
  /// Accum arm, float32, where grad_equiv exceeds float32 rounding: the same check repeated in
  /// float64 at the same weights on the same samples. At float64 rounding there, the float32
  /// difference was a kink (see isKinkCheck), not accumulation. NaN otherwise.
  double grad_equiv_f64 = kNaN;
  /// Data-parallel accum arm (workers > 1): milliseconds this window waited in the all-reduce
  /// of the gradient sums, the wait for slower workers included. NaN otherwise.
  double allreduce_ms = kNaN;
};

/// One evaluation on the held-out split.
struct EvalRecord {
  ArmKind arm = ArmKind::kNoAccum;
  int64_t step = 0;
  int64_t samples_seen = 0;
  double wall_ms = 0;
  double loss = kNaN;
  double accuracy = kNaN;  ///< NaN for regression
  /// Text: a line the arm's model writes at this evaluation, every arm from the same seed
  /// (docs/sequences.md); empty for other data (stored NULL).
  std::string text_sample;
};

/// The picture of one probe: its R micro-batch mean losses and its R window mean losses
/// counted in the same fixed bins, so that the narrower spread of the windows shows.
struct ProbeHistogram {
  double low = kNaN;            ///< left edge of the first bin
  double high = kNaN;           ///< right edge of the last bin
  std::vector<int64_t> micro;   ///< counts of the micro-batch means per bin
  std::vector<int64_t> window;  ///< counts of the window means, same bins
  /// Whether there is a picture (older stores and batch-dependent probes may have none).
  bool empty() const { return micro.empty() || micro.size() != window.size(); }
};

/// One fixed-weight variance probe of an arm: at its current weights and with no update,
/// the loss of R random micro-batches of m samples and of R random windows of m·K samples,
/// every sample drawn independently and uniformly. Only the batch size differs between the
/// two, so var_micro / var_window estimates K. A model that treats samples independently
/// draws them from the per-sample losses of a pool of `pool` training samples (one forward
/// pass), so R can be large; a BatchNorm model runs every batch forward (pool = 0).
struct ProbeRecord {
  ArmKind arm = ArmKind::kAccum;
  int64_t step = 0;  ///< the arm's optimizer steps when probed
  int64_t samples_seen = 0;
  double wall_ms = 0;
  int64_t micro_batch = 0;   ///< m
  int64_t accum = 0;         ///< K
  int64_t repeats = 0;       ///< R
  int64_t pool = 0;          ///< training samples run forward for the draws; 0: per batch
  double var_micro = kNaN;   ///< variance of the R micro-batch losses
  double var_window = kNaN;  ///< variance of the R window losses
  double ratio = kNaN;       ///< var_micro / var_window
  double ci_low = kNaN;      ///< 90% confidence interval of the ratio
  double ci_high = kNaN;
  double theory = kNaN;  ///< K; text under --token-loss tokens: weightedProbeTheory, near K
  /// Excess kurtosis γ₂ of one drawn loss, as the interval assumed it (0 under normal theory);
  /// NaN for a batch-dependent probe, whose two sides each use their own means'.
  double kurtosis = kNaN;
  /// The model normalises over its batch (BatchNorm): a micro-batch and a window are
  /// different models, so the ratio is not expected to be K.
  bool batch_dependent = false;
  ProbeHistogram histogram;  ///< the two sets of means, binned (may be empty)
};

/// The probes of a run pooled into one estimate of the ratio (poolProbes in
/// variance_ratio.h): each probe was taken at its own fixed weights, where the ratio is K.
struct PooledProbe {
  double ratio = kNaN;   ///< exp of the weighted mean of the probes' log-ratios
  double ci_low = kNaN;  ///< its 90% confidence interval
  double ci_high = kNaN;
  double theory = kNaN;  ///< K, or the pooled probes' theories' weighted geometric mean
  int64_t probes = 0;    ///< probes pooled (those at the latest probe's m and K)
  int64_t micro_batch = 0;
  int64_t accum = 0;
  bool batch_dependent = false;
};

/// What an event says happened. Stored by name (toString), e.g. "micro_batch".
enum class EventKind {
  kMicroBatch,   ///< m changed for all arms ("micro_batch")
  kAccum,        ///< K changed for all arms ("accum")
  kPause,        ///< "pause"
  kResume,       ///< "resume": after a pause
  kResumed,      ///< "resumed": the run continued from a checkpoint
  kStop,         ///< "stop": stopped early, with the reason
  kRejected,     ///< "rejected": a requested change that could not apply
  kModel,        ///< "model": a note about the model (batch-dependent, stochastic)
  kDropped,      ///< "dropped": samples left out by the window policy
  kDiverged,     ///< "diverged": an arm's loss became NaN or infinite
  kFailed,       ///< "failed": an arm stopped on an error
  kOutOfMemory,  ///< "out_of_memory": an arm's micro-batches now run in pieces
  kWorkers,      ///< "workers": the data-parallel workers joined (how many, how they share)
  kOther,        ///< a name this version does not know (a store written by a newer one)
};
template <>
inline constexpr Names<EventKind> kNames<EventKind>{
    "event",
    "micro_batch accum pause resume resumed stop rejected model dropped diverged failed "
    "out_of_memory workers other"};
/// The kind named `s`; kOther for a name this version does not know.
inline EventKind parseEventKind(const std::string& s) {
  return kNames<EventKind>.find(s).value_or(EventKind::kOther);
}
/// Whether the event changed m or K (the runs' sizes).
inline bool isBatchChange(EventKind k) {
  return k == EventKind::kMicroBatch || k == EventKind::kAccum;
}
/// Whether the event ended an arm (diverged or failed).
inline bool endsArm(EventKind k) { return k == EventKind::kDiverged || k == EventKind::kFailed; }

/// Something that happened: a slider change, pause, a policy note, a divergence.
struct EventRecord {
  int64_t samples_seen = 0;
  double wall_ms = 0;
  EventKind kind = EventKind::kOther;
  std::optional<ArmKind> arm;  ///< the arm it concerns; none for all arms
  std::string message;         ///< a sentence for people
};
/// The name of the event's arm, or "" for an event of all arms (as the store keeps it).
inline std::string armName(const EventRecord& e) {
  return e.arm ? toString(*e.arm) : std::string();
}

/// Relative differences between accum and big-batch up to this are rounding, not a broken
/// equivalence: the engine's tests hold the pair to it after 100 steps.
inline double roundingLevel(DType dtype) { return dtype == DType::kFloat64 ? 1e-12 : 1e-5; }

/// A float32 gradient check above rounding that its float64 repeat puts at float64 rounding:
/// one activation rounded to the other side of a kink (a ReLU's 0, a tie in a max-pool) in one
/// of the two float32 passes, so that sample's gradient took another path. Accumulation did
/// not differ: in float64 the two passes agree.
inline bool isKinkCheck(const StepRecord& r) {
  return r.grad_equiv > roundingLevel(DType::kFloat32) &&
         r.grad_equiv_f64 <= roundingLevel(DType::kFloat64);
}

/// The name of the gradient check's headline figure, the same in the app, the CLI table,
/// `show` and the reports: the largest check that was not a kink
/// (GradCheckTally::max_without_kinks; in JSON grad_equivalence_rel_diff_without_kinks).
inline constexpr char kGradCheckHeadline[] = "gradient check (largest, kinks excluded)";
/// printf format of the headline figure wherever it is written as text, so that every place
/// shows the same digits.
inline constexpr char kGradCheckFormat[] = "%.2e";

/// An accum or pitfall arm's gradient checks (StepRecord::grad_equiv), summed up.
struct GradCheckTally {
  int64_t checks = 0;
  int64_t kinks = 0;                ///< checks that were kinks (isKinkCheck)
  double max_kink = kNaN;           ///< the largest kink
  double max_without_kinks = kNaN;  ///< the largest of the others: accumulation's own error
  /// Checks of uneven windows (not K full micro-batches: an epoch's or the run's end) and the
  /// largest of them; the sum of the checks of full windows; the first and the last check. A
  /// pitfall arm's mistake can show at uneven windows only (mean-of-means) or grow (no-zero).
  int64_t uneven_checks = 0;
  double max_uneven = kNaN;
  double sum_full = 0;
  double first = kNaN;
  double last = kNaN;

  /// Adds the step's check, if it has one; `planned_k` is the K its window was planned with.
  void add(const StepRecord& r, int64_t planned_k) {
    if (!std::isfinite(r.grad_equiv)) return;
    ++checks;
    const bool kink = isKinkCheck(r);
    kinks += kink;
    raise(kink ? max_kink : max_without_kinks, r.grad_equiv);
    if (r.window_samples != r.micro_batch * planned_k) {
      ++uneven_checks;
      raise(max_uneven, r.grad_equiv);
    } else {
      sum_full += r.grad_equiv;
    }
    if (std::isnan(first)) first = r.grad_equiv;
    last = r.grad_equiv;
  }
  /// The mean check of the full windows (NaN without one).
  double meanFull() const {
    const int64_t full = checks - uneven_checks;
    return full > 0 ? sum_full / static_cast<double>(full) : kNaN;
  }
  /// The largest check of all.
  double max() const {
    if (std::isnan(max_kink)) return max_without_kinks;
    if (std::isnan(max_without_kinks)) return max_kink;
    return std::max(max_kink, max_without_kinks);
  }

 private:
  static void raise(double& largest, double v) {
    largest = std::isnan(largest) ? v : std::max(largest, v);
  }
};

struct ArmSummary {
  ArmKind arm = ArmKind::kNoAccum;
  ArmStatus status = ArmStatus::kRunning;
  std::string message;  ///< why it failed or diverged; empty otherwise
  int64_t micro_batch = 0;
  int64_t accum = 0;
  /// Since memory ran out, each micro-batch ran in pieces of at most this many samples (the
  /// same update); 0: micro-batches ran whole.
  int64_t memory_piece = 0;
  int64_t steps = 0;
  int64_t samples_seen = 0;
  double final_train_loss = kNaN;  ///< mean window loss over the last W updates
  double val_loss = kNaN;
  double val_accuracy = kNaN;
  double loss_variance = kNaN;            ///< per-update loss variance over the last W updates
  double loss_variance_detrended = kNaN;  ///< its detrended (successive-difference) form
  int64_t loss_variance_count = 0;        ///< n: updates both are taken over
  double noise_per_update = kNaN;         ///< trΣ/B_eff at the end, B_eff = this arm's m·K
  double b_simple = kNaN;
  double samples_per_s = kNaN;
  double tokens_per_s = kNaN;  ///< text: target tokens trained per second; NaN otherwise
  /// The model's floating-point operations per sample, forward and backward, counted from its
  /// layers' shapes (Model::flopsPerSample); NaN where the model does not count them.
  double flops_per_sample = kNaN;
  double gflop_per_s = kNaN;  ///< samples_per_s × flops_per_sample / 10⁹: achieved GFLOP/s
  /// The measured ceiling, GFLOP/s: the forward of the model's largest linear layer (an MLP's
  /// GEMM) or first convolution (the CNN) alone at this arm's first micro-batch, through the same
  /// LibTorch and BLAS on the training thread, before training (ArmCeiling). NaN where the model
  /// does not count its FLOPs, or on a GPU.
  double ceiling_gflop_per_s = kNaN;
  /// What the ceiling timed, for people: "GEMM 32×784 by 784×256"; empty without a ceiling.
  std::string ceiling_op;
  int64_t peak_memory_bytes = 0;
  int64_t peak_tensor_bytes = -1;  ///< largest per-window peak of tensor bytes; -1: unmeasured
  double equivalence_rel_diff =
      kNaN;  ///< accum vs big-batch: relative weight difference at the end
  /// accum and big-batch: the first update after which their relative weight difference
  /// exceeded roundingLevel() (the trajectories parted: training amplifies a rounding
  /// difference from there); -1 while they agree to rounding.
  int64_t trajectories_parted_at_step = -1;
  double grad_equivalence_rel_diff = kNaN;  ///< accum: max of grad_equiv over checked steps
  int64_t grad_equivalence_checks = 0;      ///< accum: steps whose gradient was checked
  /// accum: checks that were kinks (isKinkCheck) and the largest of them (NaN without one),
  /// and the max of grad_equiv over the others: how far accumulation itself is from the big
  /// batch.
  int64_t grad_equivalence_kinks = 0;
  double grad_equivalence_largest_kink = kNaN;
  double grad_equivalence_rel_diff_without_kinks = kNaN;
  /// The checks' mean over full windows, the count and the largest of those at uneven
  /// windows, the first and the last check (GradCheckTally; what pitfallDeviation() says).
  double grad_equivalence_mean_full = kNaN;
  int64_t grad_equivalence_uneven_checks = 0;
  double grad_equivalence_largest_uneven = kNaN;
  double grad_equivalence_first = kNaN;
  double grad_equivalence_last = kNaN;
  int64_t diverged_at_step = -1;
  double wall_s = 0;
  /// The model normalises over its batch (BatchNorm): accum and big-batch train different
  /// models, so they are not expected to match.
  bool batch_dependent = false;
  /// The model draws random numbers while training (dropout): each arm draws its own, so
  /// accum and big-batch may differ by their random masks, not by accumulation.
  bool stochastic = false;
  /// A digest of the final weights (FNV-1a, 64 bits, hex): two arms or runs with equal digests
  /// ended with the same weights to the bit (a resumed run against an uninterrupted one).
  std::string weights_digest;
  /// Data-parallel accum arm: seconds spent in all-reduces (of wall_s). NaN otherwise.
  double allreduce_s = kNaN;
};

/// Puts an accum arm's gradient checks into its summary.
inline void setGradChecks(ArmSummary& s, const GradCheckTally& t) {
  s.grad_equivalence_rel_diff = t.max();
  s.grad_equivalence_checks = t.checks;
  s.grad_equivalence_kinks = t.kinks;
  s.grad_equivalence_largest_kink = t.max_kink;
  s.grad_equivalence_rel_diff_without_kinks = t.max_without_kinks;
  s.grad_equivalence_mean_full = t.meanFull();
  s.grad_equivalence_uneven_checks = t.uneven_checks;
  s.grad_equivalence_largest_uneven = t.max_uneven;
  s.grad_equivalence_first = t.first;
  s.grad_equivalence_last = t.last;
}

/// An arm's gradient checks from its records alone: each window is taken as planned with the
/// larger of its own and the previous window's micro-batch count (the store keeps no planned K).
inline GradCheckTally tallyGradChecks(const std::vector<StepRecord>& steps) {
  GradCheckTally t;
  int64_t previous = 0;
  for (const StepRecord& r : steps) {
    t.add(r, std::max(r.accum, previous));
    previous = r.accum;
  }
  return t;
}

/// How far pitfall arm `s` (docs/pitfalls.md) is from the big batch, in words, from its
/// gradient checks: "×4.00 the big-batch gradient (theory: ×4)", "exact on full windows
/// (2.1e-16), 0.50 off at 1 uneven window", "typically 0.88 off the big-batch gradient".
/// `brief`: a few plain words for a read-out ("updates ×4.00 the true one", "gradient 88% off
/// the true one"). Empty without checks.
std::string pitfallDeviation(const ArmSummary& s, DType dtype, bool brief = false);

/// Why accum's and big-batch's weights parted when every gradient check was rounding, for
/// people, naming what the model of `config` has: "a rounding difference most likely tipped an
/// activation across a kink (a ReLU's 0) in one arm only, and training amplified it" where the
/// model has ReLUs; for a model without kinks (logreg, the GRU of charlm, the transformer) the
/// recurrence or the optimizer that amplified the rounding; for a TorchScript model both, as
/// possibilities. A clause without a capital or a full stop.
std::string partingCause(const ExperimentConfig& config);

/// An arm's final weights as a model to take away: a TorchScript archive (what
/// `torch.jit.save` writes) that plain PyTorch loads with `torch.jit.load`, on the CPU, in eval
/// mode, whose forward gives the arm's own outputs (docs/store.md#trained-models). Made by the
/// engine when an arm finishes or is stopped (ExperimentConfig::keep_weights); kept by the
/// store, one per run.
struct ArmWeights {
  ArmKind arm = ArmKind::kNoAccum;
  std::string format = "torchscript";  ///< what `data` holds
  std::string data;                    ///< the archive's bytes
};

/// An arm's FLOPs per sample and its measured ceiling (ArmSummary's flops_per_sample,
/// ceiling_gflop_per_s and ceiling_op), known as the run starts: a front end shows GFLOP/s and
/// the fraction of the ceiling before the arm's summary exists.
struct ArmCeiling {
  ArmKind arm = ArmKind::kNoAccum;
  double flops_per_sample = kNaN;
  double gflop_per_s = kNaN;
  std::string op;
};

/// What the run was: the resolved config and where it ran.
struct RunInfo {
  ExperimentConfig config;
  std::string device;   ///< e.g. "cpu (2 threads)" or "cuda:0 (NVIDIA …)"
  std::string dataset;  ///< a description: name, sizes, shape, classes
  std::string model;    ///< a description: spec and parameter count
  int64_t train_samples = 0;
  int64_t val_samples = 0;
  int64_t budget_samples = 0;  ///< per arm
  /// A run resumed from a checkpoint: the records it already made end at this wall_ms (its
  /// clock goes on from there); records after it in a store are redone. -1: a fresh run.
  double resumed_after_ms = -1;
  int64_t parameters = 0;
  std::vector<std::string> class_names;
  /// Each arm's ceiling, in arm order, where the model counts its FLOPs (else empty). Told
  /// live only: a stored run has them in its arms' summaries.
  std::vector<ArmCeiling> ceilings;
};

struct RunSummary {
  RunInfo info;
  std::vector<ArmSummary> arms;
  /// The last fixed-weight variance probe, if any ran, and how many ran.
  std::optional<ProbeRecord> variance_probe;
  int64_t variance_probes = 0;
  /// All the run's probes at the last probe's m and K, pooled: the headline estimate.
  std::optional<PooledProbe> variance_probe_pooled;
};

/// The summary as JSON text (the CLI's --json output, docs/cli.md).
std::string summaryToJson(const RunSummary& summary, int indent = 2);

/// An arm's sizes for people: "64 x 4", or "64 x 4 (as 32 x 8)" when memory ran out and its
/// micro-batches ran in pieces (`x` is the separator, e.g. " x " or " × ").
std::string armSizesText(const ArmSummary& arm, const std::string& x = " x ");

}  // namespace accumlab
