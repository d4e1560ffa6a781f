// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep/sweep_report.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "report/report_page.h"
#include "sweep/sweep_plots.h"

#include "series/number_text.h"

namespace accumlab::ui {

namespace {

QString escaped(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

}  // namespace

QString buildSweepReport(const SweepDetail& sweep, const SweepAnalysis& a,
                         const std::vector<PlotImage>& plots) {
  const SweepTarget target = sweepTargetFromSpec(sweep.row.spec_json);
  QString title = QObject::tr("AccumLab sweep %1").arg(sweep.row.id);
  if (!sweep.row.name.empty()) title += " · " + escaped(sweep.row.name);
  QString html = reportHead(title) + "<h1>" + title + "</h1>";
  html += "<p>" +
          QObject::tr("Created %1. %2 points; %3 reached the target (%4).")
              .arg(escaped(sweep.row.created_at))
              .arg(sweep.row.points)
              .arg(sweep.row.reached)
              .arg(escaped(describeTarget(target))) +
          "</p>";
  html +=
      "<table><tr><th>#</th><th>B</th><th>m × K</th><th>LR</th><th>status</th>"
      "<th>steps to target</th><th>samples to target</th><th>loss variance</th>"
      "<th>probe ratio</th><th>peak tensors (MiB)</th><th>samples/s</th><th>B_simple</th>"
      "<th>val acc</th><th>run</th></tr>";
  for (const SweepPoint& p : sweep.points) {
    const bool best =
        std::find(a.best_points.begin(), a.best_points.end(), p.index) != a.best_points.end();
    const QString cls =
        best ? " class=best" : (p.status == SweepStatus::kReached ? "" : " class=miss");
    html += QString("<tr%1><td>%2</td><td>%3</td><td>%4 × %5</td><td>%6</td><td>%7</td>")
                .arg(cls)
                .arg(p.index + 1)
                .arg(p.effectiveBatch())
                .arg(p.micro_batch)
                .arg(p.accum)
                .arg(numberText(p.lr, 3), escaped(toString(p.status)) +
                                              (p.message.empty() ? "" : ": " + escaped(p.message)));
    html +=
        QString(
            "<td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td><td>%7</td>"
            "<td>%8</td><td>%9</td></tr>")
            .arg(numberText(p.steps_to_target, 4), numberText(p.samples_to_target, 5),
                 numberText(p.loss_variance, 3), numberText(p.variance_probe_ratio, 3),
                 p.peak_tensor_bytes >= 0 ? QString::number(p.peak_tensor_bytes / 1048576.0, 'f', 1)
                                          : QStringLiteral("–"),
                 numberText(p.samples_per_s, 5), numberText(p.b_simple, 3),
                 std::isfinite(p.val_accuracy) ? QString::number(100 * p.val_accuracy, 'f', 2) + "%"
                                               : QStringLiteral("–"),
                 p.run_id > 0 ? QString::number(p.run_id) : QStringLiteral("–"));
  }
  html += "</table>";
  html += "<h2>" + QObject::tr("Fits") + "</h2><ul>";
  if (a.steps_fit) {
    const StepsFit& f = *a.steps_fit;
    html += "<li>" +
            QObject::tr(
                "Steps to target: S(B) = S_min + E_min/B with S_min = %1 steps, "
                "E_min = %2 samples, so B_crit = E_min/S_min = %3 (R² = %4, %5 "
                "batch sizes at their best LR; bold in the table).")
                .arg(numberText(f.s_min, 4), numberText(f.e_min, 5), numberText(f.b_crit, 4),
                     numberText(f.r2, 3))
                .arg(f.points) +
            "</li>";
  } else {
    html += "<li>" + QObject::tr("Steps to target: no fit (%1).").arg(escaped(a.steps_fit_error)) +
            "</li>";
  }
  html += "<li>" +
          QObject::tr(
              "B_simple near the target (median of the points that reached it): "
              "%1 — the noise scale that predicts B_crit.")
              .arg(numberText(a.b_simple, 3)) +
          "</li>";
  if (a.variance_slope) {
    const SlopeFit& v = *a.variance_slope;
    html += "<li>" +
            QObject::tr(
                "Loss variance against B: slope %1, 90% interval [%2, %3]; "
                "theory −1.")
                .arg(numberText(v.slope, 3), numberText(v.ci_low, 3), numberText(v.ci_high, 3)) +
            "</li>";
  } else {
    html +=
        "<li>" +
        QObject::tr("Loss variance against B: no fit (%1).").arg(escaped(a.variance_slope_error)) +
        "</li>";
  }
  html += "</ul>";
  return html + reportFigures(plots) + reportFoot();
}

bool writeSweepReport(const SweepDetail& sweep, const QString& path, QString* error) {
  const SweepAnalysis analysis = analyzeSweep(sweep.points);
  SweepPlots plots;
  plots.resize(2 * kExportWidth, 2 * kExportHeight);
  plots.setSweep(sweep, analysis);
  return writeReportFile(buildSweepReport(sweep, analysis, plots.capture()), path, error);
}

}  // namespace accumlab::ui
