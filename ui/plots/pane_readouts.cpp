// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/pane_readouts.h"

#include <QLocale>
#include <QObject>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>

#include "accumlab/variance_ratio.h"
#include "plots/arm_style.h"
#include "plots/probe_spread_plot.h"

namespace accumlab::ui {

namespace {

QString ratioText(double r) { return QString::number(r, r < 1 ? 'g' : 'f', r < 1 ? 2 : 1); }

QString intervalText(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return QString();
  return QString("[%1, %2]").arg(ratioText(lo), ratioText(hi));
}

double lastFinite(const std::vector<StepRecord>& steps, double StepRecord::*field) {
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (std::isfinite((*it).*field)) return (*it).*field;
  }
  return kNaN;
}

QString sci(double v) { return QString::number(v, 'e', 1); }

/// The gradient check's headline figure as every place writes it (kGradCheckFormat).
QString gradCheckText(double v) { return QString::asprintf(kGradCheckFormat, v); }

}  // namespace

int64_t currentAccum(const std::vector<StepRecord>& steps) {
  constexpr size_t kRecent = 5;
  std::map<int64_t, int> counts;
  for (size_t i = steps.size() > kRecent ? steps.size() - kRecent : 0; i < steps.size(); ++i) {
    ++counts[steps[i].accum];
  }
  int64_t best = 0;
  int best_count = 0;
  for (auto it = counts.rbegin(); it != counts.rend(); ++it) {  // ties: the larger K
    if (it->second > best_count) {
      best = it->first;
      best_count = it->second;
    }
  }
  return best;
}

/// Text runs: the line each arm wrote at its latest evaluation (the same seed for every arm),
/// so a class sees the models learn to write.
PaneReadout textSampleReadout(const RunData& run) {
  // One short line per arm next to the title, so the plot keeps its room at 1024×768; the
  // whole lines are in the tooltip.
  constexpr int kShown = 26;
  PaneReadout out;
  QStringList shown, whole;
  for (const ArmSeries& arm : run.arms) {
    if (arm.evals.empty() || arm.evals.back().text_sample.empty()) continue;
    const QString name = armLegendName(arm.arm).toHtmlEscaped();
    const QString line = QString::fromStdString(arm.evals.back().text_sample);
    const QString cut = line.size() > kShown ? line.left(kShown) + QChar(0x2026) : line;
    shown << QStringLiteral("<b>%1</b>: %2").arg(name, cut.toHtmlEscaped());
    whole << QStringLiteral("<b>%1</b> writes: %2").arg(name, line.toHtmlEscaped());
  }
  if (shown.isEmpty()) return out;
  out.text = shown.join("<br>");
  out.more = whole.join("<br>") + "<br><br>" +
             QObject::tr(
                 "At each evaluation every arm writes one line from the same start and "
                 "the same random draws: the lines differ by the weights alone.");
  return out;
}

/// The throughput pane's unit: tokens/s where every run drawn is text (its steps carry
/// tokens/s, which the pane draws instead of samples/s), samples/s where none is, both where
/// compared runs mix them.
QString throughputLabel(const std::vector<const RunData*>& runs) {
  bool samples = false, tokens = false;
  for (const RunData* run : runs) {
    for (const ArmSeries& arm : run->arms) {
      if (arm.steps.empty()) continue;
      (std::isfinite(arm.steps.back().tokens_per_s) ? tokens : samples) = true;
    }
  }
  if (tokens && samples) return QObject::tr("samples/s, text: tokens/s");
  return tokens ? QObject::tr("tokens/s") : QObject::tr("samples/s");
}

ArmCeiling armCeiling(const RunData& run, const ArmSeries& arm) {
  ArmCeiling c;
  c.arm = arm.arm;
  if (arm.has_summary) {
    c.flops_per_sample = arm.summary.flops_per_sample;
    c.gflop_per_s = arm.summary.ceiling_gflop_per_s;
    c.op = arm.summary.ceiling_op;
    return c;
  }
  for (const ArmCeiling& told : run.info.ceilings) {
    if (told.arm == arm.arm) return told;
  }
  return c;
}

double armGflops(const RunData& run, const ArmSeries& arm) {
  if (arm.has_summary) return arm.summary.gflop_per_s;
  const double flops = armCeiling(run, arm).flops_per_sample;
  if (!(flops > 0) || arm.steps.empty()) return kNaN;
  return arm.steps.back().samples_per_s * flops * 1e-9;
}

namespace {

/// The share of the ceiling in whole percent ("56%"), empty without a ceiling.
QString ceilingShare(double gflops, double ceiling) {
  if (!std::isfinite(gflops) || !(ceiling > 0)) return QString();
  return QString::number(100.0 * gflops / ceiling, 'f', 0) + "%";
}

QString gflopsText(double g) { return QString::number(g, 'f', g < 10 ? 2 : 1); }

}  // namespace

QString gflopsSentence(const RunData& run, const ArmSeries& arm) {
  const double g = armGflops(run, arm);
  if (!std::isfinite(g)) return QString();
  const ArmCeiling c = armCeiling(run, arm);
  const QString share = ceilingShare(g, c.gflop_per_s);
  if (share.isEmpty()) return QObject::tr("%1 GFLOP/s").arg(gflopsText(g));
  // A stored run's ceiling was measured where it trained, maybe not here.
  const QString where = run.id_label.empty() ? QObject::tr("on this machine")
                                             : QObject::tr("on the machine that trained it");
  return QObject::tr(
             "%1 GFLOP/s, %2 of the measured ceiling (the %3 alone: %4 "
             "GFLOP/s %5)")
      .arg(gflopsText(g), share, QString::fromStdString(c.op), gflopsText(c.gflop_per_s), where);
}

PaneReadout throughputReadout(const RunData& run) {
  PaneReadout out;
  QStringList more;
  // One arm on the line, so that it stays one line beside a short pane at 1024×768 (two
  // lines left the pane's axis title no room): accum, whose windows the ceiling is about,
  // else the first right arm. Every arm is in the tooltip.
  const ArmSeries* lead = nullptr;
  for (const ArmSeries& arm : run.arms) {
    const QString sentence = gflopsSentence(run, arm);
    if (sentence.isEmpty()) continue;
    more << QStringLiteral("<b>%1</b>: %2")
                .arg(armLegendName(arm.arm).toHtmlEscaped(), sentence.toHtmlEscaped());
    if (!isPitfall(arm.arm) && (lead == nullptr || arm.arm == ArmKind::kAccum)) lead = &arm;
  }
  if (lead == nullptr) return out;
  const double g = armGflops(run, *lead);
  const QString share = ceilingShare(g, armCeiling(run, *lead).gflop_per_s);
  out.text = QObject::tr("GFLOP/s: %1 <b>%2</b>%3")
                 .arg(armLegendName(lead->arm).toHtmlEscaped(), gflopsText(g),
                      share.isEmpty() ? QString() : " (" + share + ")");
  out.more = more.join("<br>") + "<br><br>" +
             QObject::tr(
                 "GFLOP/s: samples/s times the model's floating-point operations per sample, "
                 "forward and backward, counted from its layers' shapes. The ceiling is the "
                 "forward of its largest linear layer (an MLP) or its first convolution (the "
                 "CNN) timed alone at the arm's micro-batch, through the same "
                 "LibTorch and BLAS, just before training: the most the largest product runs "
                 "at on this software stack (docs/performance.md, the roofline).");
  return out;
}

/// The gradient check's headline (kGradCheckHeadline: the largest check that was not a kink,
/// the figure the CLI, `show`, JSON and the report give) and, when the trajectories have parted,
/// the update where they left rounding level: from there on training amplifies a rounding
/// difference, which is not accumulation.
PaneReadout equivalenceReadout(const RunData& run) {
  PaneReadout out;
  const ArmSeries* accum = run.find(ArmKind::kAccum);
  const ArmSeries* big = run.find(ArmKind::kBigBatch);
  const double level = roundingLevel(run.info.config.dtype);
  QStringList parts, more;
  if (accum) {
    GradCheckTally tally;
    double widest_repeat = kNaN;  // the largest float64 repeat of a kink
    int64_t largest_at = 0;       // the update of the headline check
    int64_t previous_k = 0;       // as tallyGradChecks() plans a window
    for (const StepRecord& r : accum->steps) {
      const double before = tally.max_without_kinks;
      tally.add(r, std::max(r.accum, previous_k));
      previous_k = r.accum;
      if (isKinkCheck(r) && !(r.grad_equiv_f64 <= widest_repeat)) widest_repeat = r.grad_equiv_f64;
      if (tally.max_without_kinks != before && !std::isnan(tally.max_without_kinks))
        largest_at = r.step;
    }
    if (tally.checks > 0) {
      const QString name = QString::fromUtf8(kGradCheckHeadline);
      if (std::isnan(tally.max_without_kinks)) {
        parts << QObject::tr("%1: every check a kink").arg(name);
      } else {
        parts << QObject::tr("%1 <b>%2</b>").arg(name, gradCheckText(tally.max_without_kinks));
      }
      const QString count =
          tally.checks == 1 ? QObject::tr("one check") : QObject::tr("%1 checks").arg(tally.checks);
      more << QObject::tr(
                  "Gradient: %1 at equal weights (every N-th update and every irregular "
                  "window: epoch ends, the first after a change or a resume)")
                      .arg(count) +
                  (std::isnan(tally.max_without_kinks)
                       ? QObject::tr(".")
                       : QObject::tr("; the largest that was not a kink at update %1.")
                             .arg(largest_at));
      if (tally.kinks > 0) {
        const QString which =
            tally.kinks == 1
                ? QObject::tr("One check above float32 rounding was a kink")
                : QObject::tr("%1 checks above float32 rounding were kinks").arg(tally.kinks);
        more << QObject::tr(
                    "%1 (at most %2): an activation rounded to the other side of a "
                    "ReLU's 0 (or a tie in a max-pool) in one of the two passes, so that "
                    "sample's gradient took another path. Repeated in float64 at the same "
                    "weights, the two passes agreed to %3: accumulation was exact there "
                    "too, and the headline leaves it out.")
                    .arg(which, sci(tally.max_kink), sci(widest_repeat));
      }
      if (tally.max_without_kinks > level) {
        more << QObject::tr(
                    "Checks beyond rounding that are not kinks (at most %1) are real "
                    "differences: a batch-dependent layer, random masks, or a window "
                    "that is not normalised by its true size.")
                    .arg(gradCheckText(tally.max_without_kinks));
      }
    }
  }
  if (big) {
    const double last = lastFinite(big->steps, &StepRecord::weight_rel_diff);
    if (std::isfinite(last)) {
      auto parted = std::find_if(big->steps.begin(), big->steps.end(), [&](const StepRecord& r) {
        return std::isfinite(r.weight_rel_diff) && r.weight_rel_diff > level;
      });
      if (parted == big->steps.end()) {
        parts << QObject::tr("trajectories %1").arg(sci(last));
      } else {
        const QString step = QLocale().toString(static_cast<qlonglong>(parted->step));
        parts << QObject::tr("trajectories %1 (parted at update %2: rounding, see ?)")
                     .arg(sci(last), step);
        // What the model has that amplifies rounding (a ReLU's kink, a recurrence, Adam).
        more << QObject::tr(
                    "Trajectories: accum's and big-batch's weights agreed to rounding "
                    "level until update %1. There %2, as two weather simulations part. "
                    "Accumulation itself stays exact (the gradient checks); in float64 the "
                    "arms stay together far longer.")
                    .arg(step, QString::fromStdString(partingCause(run.info.config)));
      }
    }
  }
  // Each wrong recipe's distance from the big batch, in words (pitfallDeviation).
  QStringList wrong;
  for (const ArmSeries& arm : run.arms) {
    if (!isPitfall(arm.arm) || arm.steps.empty()) continue;
    ArmSummary s;
    s.arm = arm.arm;
    s.accum = run.info.config.accum;
    setGradChecks(s, tallyGradChecks(arm.steps));
    const std::string brief = pitfallDeviation(s, run.info.config.dtype, true);
    if (brief.empty()) continue;
    const QString name = QString::fromStdString(toString(arm.arm)).remove("pitfall:");
    wrong << QObject::tr("%1 %2").arg(name, QString::fromStdString(brief)).toHtmlEscaped();
    more << QObject::tr("%1: %2").arg(
        QString::fromStdString(toString(arm.arm)),
        QString::fromStdString(pitfallDeviation(s, run.info.config.dtype)).toHtmlEscaped());
  }
  if (!wrong.isEmpty()) parts << QObject::tr("wrong recipes: %1").arg(wrong.join(", "));
  out.text = parts.join(" · ");
  out.more = more.join("<br>");
  return out;
}

PaneReadout varianceReadout(const RunData& run) {
  // The headline is every probe of the run pooled, each at its own frozen weights (where the
  // ratio is K); the latest alone is the last dot of the plot. The arms' own ratio is no test
  // of K (other weights, see "?"): it goes to the tooltip.
  const ArmSeries* no_accum = run.find(ArmKind::kNoAccum);
  const ArmSeries* accum = run.find(ArmKind::kAccum);
  // Without an accum arm, big-batch's update is the same batch of m·K samples.
  if (accum == nullptr || accum->steps.empty()) accum = run.find(ArmKind::kBigBatch);
  PaneReadout out;
  int64_t k = 0;
  if (const auto pooled = poolProbes(run.probes); pooled && std::isfinite(pooled->ratio)) {
    // Text's theory is K corrected for its lengths (weightedProbeTheory), so not K itself.
    out.text = QObject::tr("same weights <b>%1×</b> %2 · theory %3 · %n probe(s) pooled", "",
                           static_cast<int>(pooled->probes))
                   .arg(ratioText(pooled->ratio), intervalText(pooled->ci_low, pooled->ci_high))
                   .arg(std::isfinite(pooled->theory) && pooled->theory != pooled->accum
                            ? QString::number(pooled->theory, 'f', 2)
                            : QString::number(pooled->accum));
    if (pooled->batch_dependent) out.text += QObject::tr(" (BatchNorm: not K)");
    const ProbeRecord& p = run.probes.back();
    out.more = QObject::tr("latest probe (sample %1): %2× %3")
                   .arg(p.samples_seen)
                   .arg(ratioText(p.ratio), intervalText(p.ci_low, p.ci_high));
    if (!p.histogram.empty()) out.more += "<br>" + spreadWords(p).toHtmlEscaped();
  }
  if (no_accum && accum && !accum->steps.empty() && !no_accum->steps.empty()) {
    const StepRecord& a = accum->steps.back();
    const StepRecord& n = no_accum->steps.back();
    // The batch ratio of the two updates: K for accum, m·K/m for big-batch.
    k = accum->arm == ArmKind::kAccum
            ? currentAccum(accum->steps)
            : (a.micro_batch * a.accum) / std::max<int64_t>(1, n.micro_batch * n.accum);
    const int64_t w = run.info.config.variance_window;
    QString arms;
    if (a.loss_var_count < w || n.loss_var_count < w) {
      arms = QObject::tr("arms' own ratio: settling… %1/%2 updates")
                 .arg(std::min(a.loss_var_count, n.loss_var_count))
                 .arg(w);
    } else {
      const RatioInterval r = detrendedRatio(n.loss_var_detrended, n.loss_var_count,
                                             a.loss_var_detrended, a.loss_var_count);
      if (std::isfinite(r.ratio)) {
        arms = QObject::tr("arms' own ratio %1× %2 (other weights: no test of K)")
                   .arg(ratioText(r.ratio), intervalText(r.low, r.high));
      }
    }
    if (!arms.isEmpty()) out.more = out.more.isEmpty() ? arms : out.more + "<br>" + arms;
  }
  bool ended = !run.arms.empty();
  for (const ArmSeries& arm : run.arms) {
    ended = ended && arm.has_summary && arm.summary.status != ArmStatus::kRunning;
  }
  if (out.text.isEmpty() && k > 0 && !out.more.isEmpty()) {
    out.text =
        !probesVariance(run.info.config) ? QObject::tr("no same-weights probe (probe repeats 0)")
        : ended ? QObject::tr("no same-weights probe: the run ended before its first (theory %1)")
                      .arg(k)
        : isTextData(run.info.config.data)
            ? QObject::tr(
                  "theory near %1 at one set of weights, lengths allowed for "
                  "(waiting for the first probe)")
                  .arg(k)
            : QObject::tr("theory %1 at one set of weights (waiting for the first probe)").arg(k);
  }
  return out;
}

}  // namespace accumlab::ui
