// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plot_catalog.h"

#include <QCoreApplication>
#include <cmath>

namespace accumlab::ui {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

QString tr(const char* text) { return QCoreApplication::translate("PlotCatalog", text); }

std::vector<CanvasDef> makeCatalog() {
  std::vector<CanvasDef> c;

  c.push_back({"loss",
               tr("Training loss per update"),
               tr("<b>What it shows:</b> the loss of every optimizer update, i.e. the mean loss "
                  "over all samples of its window of K micro-batches:<br>"
                  "<tt>loss = Σ<sub>i</sub> Σ<sub>j∈mb<sub>i</sub></sub> ℓ<sub>j</sub> / "
                  "Σ<sub>i</sub>|mb<sub>i</sub>|</tt>.<br>Faint lines are the raw values, bold "
                  "lines are smoothed with TensorBoard's debiased moving average "
                  "(<tt>last = s·last + (1−s)·x; shown = last/(1−s<sup>n</sup>)</tt>, s = the "
                  "smoothing slider).<br><b>Read it:</b> <i>no-accum</i> updates after every "
                  "micro-batch of m samples, so its loss jumps around; <i>accum</i> averages K "
                  "micro-batches and should lie on <i>big-batch</i> (one batch of m·K)."),
               {{tr("loss"), false, true}},
               {{"loss_raw", tr("raw"), [](const StepRecord& r) { return r.loss; }, nullptr, false,
                 0, SeriesLook::kFaint, std::nullopt},
                {"loss_smoothed", QString(), [](const StepRecord& r) { return r.loss; }, nullptr,
                 true, 0, SeriesLook::kBold, std::nullopt}}});

  c.push_back(
      {"variance",
       tr("Loss variance"),
       tr("<b>What it shows (top):</b> how much the update loss jitters: for each arm "
          "the variance of its last W update losses, <b>detrended</b> (successive "
          "differences, <tt>Σ(ℓ<sub>t</sub> − ℓ<sub>t−1</sub>)² / (2(W − 1))</tt>, "
          "blind to the slow fall of the loss); faint: the plain variance, which also "
          "counts that fall.<br><b>Bottom:</b> the variance ratio no-accum ÷ accum. "
          "An update that averages K micro-batches carries 1/K of the noise, so theory "
          "says K (dotted). The dots are the <b>same-weights probe</b>: every 10,000 "
          "samples, accum's weights are frozen, a pool of 4096 training samples runs "
          "forward once, and thousands of random batches of m and of m·K are drawn from "
          "their losses, with no update; only the batch size differs, so their ratio "
          "estimates K cleanly; bars are 90% intervals. The read-out pools every probe "
          "so far. <b>Right:</b> the latest probe's picture: how the mean losses of the "
          "batches of m (wide) and of m·K (narrow) spread at the same weights; the "
          "bars mark one standard deviation each, and the windows' is the "
          "micro-batches' ÷ √K.<br><b>Why the arms' own ratio differs from K:</b> (1) the arms "
          "sit at different weights, so their per-sample losses spread differently "
          "(no-accum, less trained, spreads more); (2) no-accum's many small, noisy "
          "updates shake its weights from one update to the next, which adds loss "
          "variance of its own; (3) no-accum's W updates span K times less training "
          "than accum's, so the loss trend inside the window differs (detrending "
          "removes most of it); (4) W updates give a noisy estimate (the read-out's "
          "interval says how noisy). The probe, at one set of frozen weights, removes "
          "all four. BatchNorm models normalise over the "
          "batch, so there neither ratio is expected to be K."),
       // Short axis titles: the panes are short on a small screen, and two long
       // titles stacked there run into each other. The "?" text says the rest.
       // σ², the title says of what: "variance" stood cut beside a short pane at a projector's
       // presentation size.
       {{tr("σ²"), true, false}, {tr("ratio"), true, false}},
       {{"loss_variance", QString(), [](const StepRecord& r) { return r.loss_var_detrended; },
         nullptr, false, 0, SeriesLook::kNormal, std::nullopt},
        {"loss_variance_plain", tr("plain"), [](const StepRecord& r) { return r.loss_var_rolling; },
         nullptr, false, 0, SeriesLook::kFaint, std::nullopt},
        {"theory_k", tr("theory K"),
         [](const StepRecord& r) { return static_cast<double>(r.accum); }, nullptr, false, 1,
         SeriesLook::kReference, ArmKind::kAccum}}});

  c.push_back(
      {"noise",
       tr("Gradient noise per update"),
       tr("<b>What it shows (top):</b> how noisy the direction of each update is. "
          "trΣ is the variance of a single sample's gradient, estimated by comparing "
          "micro-batch gradients with the window gradient (McCandlish et al. 2018):<br>"
          "<tt>trΣ ≈ (|g<sub>small</sub>|² − |G<sub>big</sub>|²) / (1/B<sub>small</sub> − "
          "1/B<sub>big</sub>)</tt>.<br>An update that averages B<sub>eff</sub> = m·K "
          "samples has noise <tt>trΣ / B<sub>eff</sub></tt>: K times less with "
          "accumulation.<br><b>Bottom:</b> the critical batch <tt>B<sub>simple</sub> = "
          "trΣ / |G|²</tt>, where noise and signal are equal; the dotted line is the "
          "effective batch m·K. Batches far below B<sub>simple</sub> waste updates on "
          "noise; far above it, extra samples buy little."),
       {{tr("trΣ / B_eff"), true, false}, {tr("batch size"), true, false}},
       {{"noise_per_update", QString(), [](const StepRecord& r) { return r.noise_per_update; },
         nullptr, false, 0, SeriesLook::kNormal, std::nullopt},
        {"b_simple", tr("B_simple"), [](const StepRecord& r) { return r.b_simple; }, nullptr, false,
         1, SeriesLook::kNormal, std::nullopt},
        {"effective_batch", tr("m·K"),
         [](const StepRecord& r) { return static_cast<double>(r.micro_batch * r.accum); }, nullptr,
         false, 1, SeriesLook::kReference, ArmKind::kAccum}}});

  c.push_back(
      {"validation",
       tr("Validation loss and accuracy"),
       tr("<b>What it shows:</b> loss (top) and accuracy (bottom) on the held-out "
          "split, evaluated every N samples seen and at the end.<br><b>Read it:</b> "
          "<i>accum</i> and <i>big-batch</i> take the same updates, so their curves "
          "coincide; <i>no-accum</i> takes K times more, smaller, noisier steps on the "
          "same samples."),
       {{tr("val loss"), false, true}, {tr("val accuracy %"), false, false}},
       {{"val_loss", QString(), nullptr, [](const EvalRecord& r) { return r.loss; }, false, 0,
         SeriesLook::kNormal, std::nullopt},
        {"val_accuracy", QString(), nullptr, [](const EvalRecord& r) { return 100.0 * r.accuracy; },
         false, 1, SeriesLook::kNormal, std::nullopt}}});

  c.push_back(
      {"throughput",
       tr("Throughput and memory"),
       tr("<b>What it shows:</b> training samples per second of each arm (top; for "
          "text, <b>target tokens per second</b>: its sequences differ in length, and a "
          "sequence of n bytes brings n + 1 tokens) and, "
          "below, the <b>peak tensor memory</b> of each arm's update: the most bytes of "
          "tensors alive at once while it runs forward, backward and the optimizer "
          "step over its window.<br><b>Counted</b> (CPU): the arm's own tensors — "
          "weights, gradients, optimizer state (momentum, Adam moments), the batch it "
          "is working on and the activations kept for backward. <b>Not counted:</b> the "
          "dataset, the other arms, evaluation, the gradient check, and memory that "
          "libraries keep outside tensors (the caches and work buffers of BLAS and "
          "oneDNN, the allocator's free lists, the code itself). On a GPU the figure is "
          "the CUDA caching allocator's peak of allocated bytes during the window, which "
          "includes the other arms' weights on the device.<br>The dotted line is the "
          "whole process's resident memory (RSS): one process trains all arms, so it is "
          "shared and includes everything above that tensors leave out.<br><b>Read "
          "it:</b> accumulation buys the update of a batch of m·K at the memory of a "
          "batch of m: <i>accum</i> sits near <i>no-accum</i>, far below "
          "<i>big-batch</i>; the price is K smaller calls per update."),
       {{tr("samples/s"), false, false}, {tr("MiB"), true, false}},
       // A text run's steps carry tokens/s: the top pane draws that instead, and
       // says so on its axis (PlotFeed: throughputLabel).
       {{"samples_per_s", QString(),
         [](const StepRecord& r) { return std::isfinite(r.tokens_per_s) ? kNaN : r.samples_per_s; },
         nullptr, false, 0, SeriesLook::kNormal, std::nullopt},
        {"tokens_per_s", QString(), [](const StepRecord& r) { return r.tokens_per_s; }, nullptr,
         false, 0, SeriesLook::kNormal, std::nullopt},
        {"peak_tensor_mib", tr("peak tensors"),
         [](const StepRecord& r) {
           return r.peak_tensor_bytes >= 0 ? static_cast<double>(r.peak_tensor_bytes) / kMiB : kNaN;
         },
         nullptr, false, 1, SeriesLook::kNormal, std::nullopt},
        {"memory_mib", tr("process RSS"),
         [](const StepRecord& r) { return static_cast<double>(r.memory_bytes) / kMiB; }, nullptr,
         false, 1, SeriesLook::kReference, ArmKind::kAccum}}});

  c.push_back(
      {"equivalence",
       tr("Gradient equivalence"),
       tr("<b>What it shows (bold): accumulated gradient = big-batch gradient.</b> "
          "Every N-th update of <i>accum</i> "
          "(<tt>--grad-check-every</tt>) and every irregular window (the short or "
          "epoch-end window, the first after a change of m or K or a resume), the "
          "same window's samples are also run as "
          "one big batch at the same weights, and the two gradients are compared:<br>"
          "<tt>|g<sub>accum</sub> − g<sub>big</sub>| / |g<sub>big</sub>|</tt> (norms "
          "over all parameters).<br><b>Read it:</b> K micro-batches of m, summed "
          "and divided by the window's sample count, give exactly the gradient of one "
          "batch of m·K, so this stays at rounding level (about 1e-7 in float32, 1e-15 "
          "in float64) for as long as the run lasts. Values of 1e-3 and more mean "
          "something breaks the equivalence: BatchNorm (statistics per micro-batch), "
          "or the flush-divide-by-K policy at each epoch end.<br><b>Diamonds: "
          "kinks.</b> Now and then one float32 check spikes to 1e-4 … 1e-2: one "
          "activation sat within rounding of a ReLU's 0, and the big product and the "
          "small ones rounded it to different sides. Every float32 check above 1e-5 "
          "is repeated in float64 at the same weights; a diamond is that repeat. Near "
          "1e-16, it says the spike was rounding, not accumulation.<br><b>Thin: "
          "trajectories.</b> The weights of <i>accum</i> and <i>big-batch</i> after "
          "each update. They start equal to rounding, but training amplifies tiny "
          "differences (a ReLU that flips for one sample in one arm only), so the two "
          "runs part slowly, like two weather simulations; in float64 they stay "
          "together far longer. That is rounding, not accumulation.<br><b>Dash-dotted: "
          "wrong recipes.</b> A pitfall arm (Common mistakes) is checked like accum, at its "
          "own weights: its line is the size of its mistake (pitfall:sum stays at K − "
          "1).<br><b>Read-out:</b> the "
          "gradient check (largest, kinks excluded), the figure the CLI, <tt>show</tt> "
          "and the report give."),
       {{tr("max relative difference"), true, false}},
       {{"grad_equiv", tr("gradient"), [](const StepRecord& r) { return r.grad_equiv; }, nullptr,
         false, 0, SeriesLook::kBold, ArmKind::kAccum, true},
        {"grad_equiv_f64", tr("gradient, float64 repeat"),
         [](const StepRecord& r) { return r.grad_equiv_f64; }, nullptr, false, 0,
         SeriesLook::kMarkers, ArmKind::kAccum},
        {"weight_rel_diff", tr("trajectories"),
         [](const StepRecord& r) { return r.weight_rel_diff; }, nullptr, false, 0,
         SeriesLook::kNormal, ArmKind::kBigBatch}}});
  return c;
}

}  // namespace

const std::vector<CanvasDef>& plotCatalog() {
  static const std::vector<CanvasDef> catalog = makeCatalog();
  return catalog;
}

QString xAxisLabel(XAxisMode mode) {
  switch (mode) {
    case XAxisMode::kSamples:
      return tr("samples seen");
    case XAxisMode::kSteps:
      return tr("optimizer steps");
    case XAxisMode::kWallTime:
      return tr("wall time (s)");
  }
  return QString();
}

namespace {

/// Every record type carries samples_seen, step and wall_ms.
template <typename Record>
double xOfRecord(const Record& r, XAxisMode mode) {
  switch (mode) {
    case XAxisMode::kSamples:
      return static_cast<double>(r.samples_seen);
    case XAxisMode::kSteps:
      return static_cast<double>(r.step);
    case XAxisMode::kWallTime:
      return r.wall_ms / 1000.0;
  }
  return 0;
}

}  // namespace

double xOf(const StepRecord& r, XAxisMode mode) { return xOfRecord(r, mode); }
double xOf(const EvalRecord& r, XAxisMode mode) { return xOfRecord(r, mode); }
double xOf(const ProbeRecord& r, XAxisMode mode) { return xOfRecord(r, mode); }

}  // namespace accumlab::ui
