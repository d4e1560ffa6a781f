// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/html_report.h"

#include <QDateTime>
#include <QFile>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <map>

#include "accumlab/format_bytes.h"
#include "accumlab/lesson.h"
#include "accumlab/variance_ratio.h"
#include "plots/arm_style.h"
#include "plots/probe_spread_plot.h"
#include "report/report_page.h"
#include "runs/run_loader.h"

namespace accumlab::ui {

namespace {

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString num(double v, int precision = 4) {
  return std::isfinite(v) ? QString::number(v, 'g', precision) : QStringLiteral("–");
}

QString ratio(double a, double b) {
  return std::isfinite(a) && std::isfinite(b) && b != 0 ? QString::number(a / b, 'f', 2) + "×"
                                                        : QStringLiteral("–");
}

QString mib(int64_t bytes) {
  return bytes > 0 ? QString::fromStdString(formatBytes(static_cast<double>(bytes), ByteUnit::kMiB))
                   : QStringLiteral("–");
}

/// The arm's summary, or one made from its last records while it still runs.
ArmSummary summaryOf(const ArmSeries& arm) {
  if (arm.has_summary) return arm.summary;
  ArmSummary s;
  s.arm = arm.arm;
  if (!arm.steps.empty()) {
    const StepRecord& last = arm.steps.back();
    s.micro_batch = last.micro_batch;
    s.accum = last.accum;
    s.steps = last.step;
    s.samples_seen = last.samples_seen;
    s.final_train_loss = last.loss;
    s.loss_variance = last.loss_var_rolling;
    s.loss_variance_detrended = last.loss_var_detrended;
    s.loss_variance_count = last.loss_var_count;
    s.noise_per_update = last.noise_per_update;
    s.b_simple = last.b_simple;
    s.samples_per_s = last.samples_per_s;
    s.tokens_per_s = last.tokens_per_s;
    s.peak_memory_bytes = last.memory_bytes;
    for (const StepRecord& r : arm.steps)
      s.peak_tensor_bytes = std::max(s.peak_tensor_bytes, r.peak_tensor_bytes);
    s.equivalence_rel_diff = last.weight_rel_diff;
    setGradChecks(s, tallyGradChecks(arm.steps));
  }
  if (!arm.evals.empty()) {
    s.val_loss = arm.evals.back().loss;
    s.val_accuracy = arm.evals.back().accuracy;
  }
  return s;
}

QString configTable(const RunData& run) {
  QString html = "<table><tr><th class=k>setting</th><th class=k>value</th></tr>";
  for (const auto& [k, v] : flattenConfig(configToJson(run.info.config, 0))) {
    html += QString("<tr><td class=k>%1</td><td class=k><code>%2</code></td></tr>")
                .arg(QString::fromStdString(k).toHtmlEscaped(),
                     QString::fromStdString(v).toHtmlEscaped());
  }
  return html + "</table>";
}

QString summaryTable(const RunData& run) {
  const ArmSeries* base_arm = run.find(ArmKind::kNoAccum);
  const ArmSummary base = base_arm ? summaryOf(*base_arm) : ArmSummary{};
  QString html =
      "<table><tr><th class=k>arm</th><th>status</th><th>m × K</th><th>steps</th>"
      "<th>samples</th><th>train loss</th><th>val loss</th><th>val acc</th>"
      "<th>loss var</th><th>no-accum ÷ arm<br>loss var</th><th>trΣ/B<sub>eff</sub></th>"
      "<th>no-accum ÷ arm<br>noise</th><th>B<sub>simple</sub></th><th>samples/s</th>"
      "<th>arm ÷ no-accum<br>speed</th><th>peak<br>tensors</th><th>peak RSS<br>(process)</th>"
      "<th>" +
      QString::fromUtf8(kGradCheckHeadline).replace(" (", "<br>(") +
      "</th>"
      "<th>traj diff</th></tr>";
  for (const ArmSeries& arm : run.arms) {
    const ArmSummary s = summaryOf(arm);
    html += QString("<tr><td class=k style='color:%1'><b>%2</b></td><td>%3</td><td>%4</td>")
                .arg(armColorName(arm.arm), armName(arm.arm), esc(toString(s.status)),
                     esc(armSizesText(s, " × ")));
    html +=
        QString("<td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td>")
            .arg(s.steps)
            .arg(QLocale().toString(static_cast<qlonglong>(s.samples_seen)),
                 num(s.final_train_loss), num(s.val_loss),
                 std::isfinite(s.val_accuracy) ? QString::number(100 * s.val_accuracy, 'f', 2) + "%"
                                               : QStringLiteral("–"));
    // No K beside these ratios: the arms sit at different weights, so they are no test of K
    // (the same-weights probe below the table is, with its theory value).
    html += QString("<td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td>")
                .arg(num(s.loss_variance_detrended),
                     ratio(base.loss_variance_detrended, s.loss_variance_detrended),
                     num(s.noise_per_update), ratio(base.noise_per_update, s.noise_per_update),
                     num(s.b_simple));
    auto sci = [](double v) {
      return std::isfinite(v) ? QString::number(v, 'e', 2) : QStringLiteral("–");
    };
    // The headline in the digits the app and the CLI give it.
    auto gradCheck = [](double v) {
      return std::isfinite(v) ? QString::asprintf(kGradCheckFormat, v) : QStringLiteral("–");
    };
    html +=
        QString("<td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td></tr>")
            .arg(num(s.samples_per_s, 6) +
                     (std::isfinite(s.tokens_per_s)
                          ? QString("<br><small>%1 tokens/s</small>").arg(num(s.tokens_per_s, 6))
                          : QString()),
                 ratio(s.samples_per_s, base.samples_per_s), mib(s.peak_tensor_bytes),
                 mib(s.peak_memory_bytes),
                 gradCheck(s.grad_equivalence_rel_diff_without_kinks) +
                     (s.grad_equivalence_kinks > 0
                          ? QString("<br><small>%1 %2 at %3</small>")
                                .arg(s.grad_equivalence_kinks)
                                .arg(s.grad_equivalence_kinks == 1 ? "kink" : "kinks",
                                     sci(s.grad_equivalence_largest_kink))
                          : QString()),
                 sci(s.equivalence_rel_diff));
    if (!s.message.empty()) {
      html += QString("<tr><td class='k muted' colspan=19>%1: %2</td></tr>")
                  .arg(armName(arm.arm), esc(s.message));
    }
  }
  return html + "</table>";
}

/// The same-weights probes pooled (the headline) and the across-arm variance ratio, with
/// their 90% intervals.
QString varianceParagraph(const RunData& run) {
  auto interval = [](double r, double lo, double hi) {
    return QString("<b>%1×</b> [%2, %3]")
        .arg(QString::number(r, 'g', 3), QString::number(lo, 'g', 3), QString::number(hi, 'g', 3));
  };
  QStringList lines;
  if (const auto pooled = poolProbes(run.probes); pooled && std::isfinite(pooled->ratio)) {
    const ProbeRecord& p = run.probes.back();
    lines << QObject::tr(
                 "Same weights (%1 of %2 probes pooled, each %3 batches of %4 and of %5%6): "
                 "%7 (90%) · theory %8%9 · latest probe (at %10 samples): %11")
                 .arg(pooled->probes)
                 .arg(run.probes.size())
                 .arg(p.repeats)
                 .arg(p.micro_batch)
                 .arg(p.micro_batch * p.accum)
                 .arg(p.pool > 0 ? QObject::tr(" drawn from the losses of %1 samples").arg(p.pool)
                                 : QString())
                 .arg(interval(pooled->ratio, pooled->ci_low, pooled->ci_high))
                 .arg(pooled->accum)
                 .arg(pooled->batch_dependent ? QObject::tr(" (BatchNorm: batch-dependent, not K)")
                                              : QString())
                 .arg(QLocale().toString(static_cast<qlonglong>(p.samples_seen)))
                 .arg(interval(p.ratio, p.ci_low, p.ci_high));
    if (!p.histogram.empty()) lines << spreadWords(p).toHtmlEscaped().replace("\n", "; ");
  }
  std::vector<ArmSummary> summaries;
  for (const ArmSeries& arm : run.arms) summaries.push_back(summaryOf(arm));
  const auto r = armVarianceRatio(summaries);
  if (r && std::isfinite(r->ci.ratio)) {
    lines << QObject::tr(
                 "Loss variance no-accum ÷ accum (detrended, last %1 updates): %2 "
                 "(90%) · not a test of K = %3: the arms sit at different weights and "
                 "no-accum's own updates shake its weights; the probe holds the weights fixed")
                 .arg(r->updates)
                 .arg(interval(r->ci.ratio, r->ci.low, r->ci.high))
                 .arg(r->theory);
  }
  return lines.isEmpty() ? QString() : "<p>" + lines.join("<br>") + "</p>";
}

/// Each wrong recipe's distance from the big batch, in the words of the app and the CLI
/// (pitfallDeviation).
QString pitfallParagraph(const RunData& run) {
  QStringList lines;
  for (const ArmSeries& arm : run.arms) {
    if (!isPitfall(arm.arm)) continue;
    ArmSummary s = summaryOf(arm);
    if (!arm.has_summary) s.accum = run.info.config.accum;
    const std::string words = pitfallDeviation(s, run.info.config.dtype);
    if (words.empty()) continue;
    lines << QObject::tr("Wrong recipe <b>%1</b>: %2").arg(esc(toString(arm.arm)), esc(words));
  }
  return lines.isEmpty() ? QString() : "<p>" + lines.join("<br>") + "</p>";
}

/// Text runs: the line each arm wrote at each evaluation (every arm from the same seed, so
/// arms at the same weights write the same line); at most kWritesRows evaluations, spread
/// evenly, the last always among them.
QString writesTable(const RunData& run) {
  constexpr size_t kWritesRows = 12;
  std::map<int64_t, std::map<ArmKind, std::string>> by_samples;
  for (const ArmSeries& arm : run.arms) {
    for (const EvalRecord& e : arm.evals) {
      if (!e.text_sample.empty()) by_samples[e.samples_seen][arm.arm] = e.text_sample;
    }
  }
  if (by_samples.empty()) return QString();
  QString html = QObject::tr(
                     "<p><b>What each arm writes</b> at temperature 0.8, from the same seed "
                     "(docs/sequences.md)</p>") +
                 "<table><tr><th>samples</th>";
  for (const ArmSeries& arm : run.arms) {
    html += QString("<th class=k style='color:%1'>%2</th>")
                .arg(armColorName(arm.arm), armName(arm.arm));
  }
  html += "</tr>";
  const size_t n = by_samples.size();
  const size_t shown = std::min(n, kWritesRows);
  auto it = by_samples.begin();
  size_t at = 0;
  for (size_t row = 0; row < shown; ++row) {
    const size_t want = shown == 1 ? n - 1 : row * (n - 1) / (shown - 1);
    std::advance(it, static_cast<std::ptrdiff_t>(want - at));
    at = want;
    html += "<tr><td>" + QLocale().toString(static_cast<qlonglong>(it->first)) + "</td>";
    for (const ArmSeries& arm : run.arms) {
      const auto found = it->second.find(arm.arm);
      html += "<td class=k><code>" +
              (found == it->second.end() ? QStringLiteral("–") : esc(found->second)) +
              "</code></td>";
    }
    html += "</tr>";
  }
  html += "</table>";
  if (shown < n) {
    html +=
        QObject::tr("<p class=muted>%1 of %2 evaluations, spread evenly.</p>").arg(shown).arg(n);
  }
  return html;
}

QString eventsList(const RunData& run) {
  QString html;
  for (const EventRecord& e : run.events) {
    if (e.kind == EventKind::kPause || e.kind == EventKind::kResume) continue;
    html += QString("<li>%1 samples, %2 s: %3</li>")
                .arg(QLocale().toString(static_cast<qlonglong>(e.samples_seen)))
                .arg(QString::number(e.wall_ms / 1000.0, 'f', 1), esc(e.message));
  }
  return html.isEmpty() ? QString() : "<p><b>Events</b></p><ul>" + html + "</ul>";
}

QString semantics(const std::vector<RunData>& runs) {
  QStringList policies;
  for (const RunData& r : runs)
    policies << QString::fromStdString(toString(r.info.config.window_policy));
  policies.removeDuplicates();
  return QObject::
      tr("<h2>Semantics</h2>"
         "<p><b>Arms.</b> <i>no-accum</i> steps after every micro-batch of m samples; "
         "<i>accum</i> adds the gradients of K micro-batches of m and steps once (effective "
         "batch m·K); <i>big-batch</i> steps on one real batch of m·K. All arms start from "
         "the same weights and read the samples in the same order.</p>"
         "<p><b>Window normalisation.</b> Each micro-batch loss is the <i>sum</i> of its "
         "per-sample losses divided by the number of samples in the whole window, so the "
         "applied gradient is <tt>g = Σ<sub>i</sub> Σ<sub>j∈mb<sub>i</sub></sub> ∇ℓ<sub>j</sub> / "
         "Σ<sub>i</sub>|mb<sub>i</sub>|</tt> (never mean/K, which is wrong for uneven "
         "micro-batches). Clipping applies to the accumulated gradient, then the optimizer "
         "and the LR schedule step. Short last window policy: <b>%1</b>.</p>"
         "<p><b>Loss variance</b>: detrended variance of the last W update losses "
         "(<tt>Σ(ℓ<sub>t</sub> − ℓ<sub>t−1</sub>)² / (2(W − 1))</tt>); its across-arm "
         "ratio has a 90% F-interval. <b>Same-weights probe</b>: at accum's frozen weights, "
         "the loss variance of random batches of m over that of random batches of m·K, "
         "with no update (theory: exactly K), the batches drawn from the per-sample losses "
         "of one forward pass over a pool of training samples; its 90% F-interval allows "
         "for the losses' heavy tail (excess kurtosis). The headline pools every probe of "
         "the run (the weighted mean of their log-ratios). "
         "<b>Gradient noise</b>: unbiased estimates from micro-batch and window gradients "
         "(McCandlish et al. 2018, App. A), <tt>trΣ ≈ (|g<sub>small</sub>|² − "
         "|G<sub>big</sub>|²)/(1/B<sub>small</sub> − 1/B<sub>big</sub>)</tt>, "
         "<tt>|G|² ≈ (B<sub>big</sub>|G<sub>big</sub>|² − B<sub>small</sub>|g<sub>small</sub>|²)"
         "/(B<sub>big</sub> − B<sub>small</sub>)</tt>, kept as debiased EMAs; "
         "noise per update <tt>trΣ/B<sub>eff</sub></tt>, critical batch "
         "<tt>B<sub>simple</sub> = trΣ/|G|²</tt>. <b>Gradient check</b> (the accumulation "
         "check): every N-th accum update and every irregular window (the short or "
         "epoch-end window, the first after a change of m or K or a resume), "
         "<tt>|g<sub>accum</sub> − g<sub>big</sub>| / "
         "|g<sub>big</sub>|</tt> for the same window run as one big batch at the same "
         "weights; rounding level is about 1e-7 in float32. A float32 check above 1e-5 is "
         "repeated in float64; where the two passes then agree to 1e-12 it was a "
         "<i>kink</i> (an activation rounded to the other side of a ReLU's 0 in one pass) "
         "and is counted, not shown as the accumulation's error: the table gives the "
         "<i>gradient check (largest, kinks excluded)</i>. <b>Traj diff</b> (the "
         "trajectories): the last <tt>max|w<sub>accum</sub> − w<sub>big</sub>| / "
         "max|w<sub>big</sub>|</tt> over weight tensors; in float32 it may grow "
         "chaotically from rounding, which is dynamics, not accumulation. Ratios in the summary "
         "compare each arm with <i>no-accum</i> as "
         "trained: the arms sit at different weights, so these ratios are no test of K "
         "(the same-weights probe is).</p>")
          .arg(policies.join(", ").toHtmlEscaped());
}

QString lessonSection(const std::vector<LessonResultRow>& lessons) {
  if (lessons.empty()) return QString();
  QString html = "<h2>Lesson results</h2>";
  for (const LessonResultRow& row : lessons) {
    LessonVerdict v;
    try {
      v = verdictFromJson(row.verdict_json);
    } catch (const std::exception&) {
      continue;  // an attempt whose verdict cannot be read has nothing to show
    }
    html += QString("<h3>%1 %2</h3><p class=muted>attempt %3 · %4 · runs %5</p>")
                .arg(row.all_hold ? "✓" : "✗", esc(row.title))
                .arg(row.id)
                .arg(esc(row.finished_at))
                .arg([&] {
                  QStringList ids;
                  for (int64_t id : row.run_ids) ids << QString::number(id);
                  return ids.join(", ");
                }());
    if (v.prediction) {
      html += QString("<p><b>%1 Prediction.</b> %2 You said <b>%3</b>; measured <b>%4</b>. %5</p>")
                  .arg(v.prediction->correct ? "✓" : "✗", esc(v.prediction->question),
                       esc(v.prediction->predicted), esc(v.prediction->measured),
                       esc(v.prediction->sentence));
    }
    html +=
        "<table><tr><th></th><th class=k>check</th><th>measured</th><th>90% interval</th>"
        "<th>theory</th><th class=k>what it means</th></tr>";
    for (const CheckVerdict& c : v.checks) {
      const QString unit = QString::fromStdString(c.unit);
      const QString interval = std::isfinite(c.low) && std::isfinite(c.high)
                                   ? QString("[%1, %2]").arg(num(c.low, 3), num(c.high, 3))
                                   : QStringLiteral("–");
      QString theory = esc(c.compare) + " " + num(c.theory, 3) + unit;
      if (!c.tolerance.empty()) theory += "<br><span class=muted>" + esc(c.tolerance) + "</span>";
      html += QString(
                  "<tr><td>%1</td><td class=k>%2</td><td>%3%4</td><td>%5</td><td>%6</td>"
                  "<td class=k>%7</td></tr>")
                  .arg(c.holds ? "✓" : "✗", esc(c.name), num(c.measured, 3), unit, interval, theory,
                       esc(c.sentence));
    }
    html += "</table>";
  }
  return html;
}

}  // namespace

QString buildHtmlReport(const std::vector<RunData>& runs, const std::vector<PlotImage>& plots,
                        const std::vector<LessonResultRow>& lessons) {
  QString html = reportHead("AccumLab report") + "<h1>AccumLab report</h1>";
  html += QString("<p class=muted>%1 · %2 experiment(s)</p>")
              .arg(QDateTime::currentDateTime().toString(Qt::ISODate))
              .arg(runs.size());
  html += lessonSection(lessons);
  for (const RunData& run : runs) {
    html += "<h2>" + esc(run.label.empty() ? run.info.config.data : run.label) + "</h2>";
    html += QString("<p class=muted>data: %1<br>model: %2<br>device: %3</p>")
                .arg(esc(run.info.dataset.empty() ? run.info.config.data : run.info.dataset),
                     esc(run.info.model.empty() ? run.info.config.model : run.info.model),
                     esc(run.info.device.empty() ? run.info.config.device : run.info.device));
    html += "<h3>Summary</h3>" + summaryTable(run) + varianceParagraph(run) +
            pitfallParagraph(run) + writesTable(run) + eventsList(run);
    html += "<details><summary>Configuration</summary>" + configTable(run) + "</details>";
  }
  html += "<h2>Plots</h2>" + reportFigures(plots);
  html += semantics(runs);
  return html + reportFoot();
}

bool writeHtmlReport(const std::vector<RunData>& runs, const std::vector<PlotImage>& plots,
                     const QString& path, QString* error,
                     const std::vector<LessonResultRow>& lessons) {
  return writeReportFile(buildHtmlReport(runs, plots, lessons), path, error);
}

bool writeHtmlReport(const std::vector<RunData>& runs, const QString& path, QString* error) {
  return writeHtmlReport(runs, renderPlots(runs), path, error);
}

bool writeLessonReport(RunStore& store, const LessonResultRow& result, const QString& path,
                       QString* error) {
  std::vector<RunData> runs;
  try {
    // Runs deleted since the attempt are left out; the verdict stays.
    std::vector<int64_t> ids;
    for (int64_t id : result.run_ids) {
      if (store.hasRun(id)) ids.push_back(id);
    }
    runs = loadExperiments(store, ids);
  } catch (const std::exception& e) {
    *error = QString::fromStdString(e.what());
    return false;
  }
  return writeHtmlReport(runs, renderPlots(runs), path, error, {result});
}

}  // namespace accumlab::ui
