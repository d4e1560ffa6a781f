// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessons/lesson_text.h"

#include <QCoreApplication>
#include <QStringList>
#include <cmath>
#include <map>

#include "plots/plot_catalog.h"
#include "sweep/sweep_plots.h"

namespace accumlab::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("LessonPanel", text); }

QString html(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString shortNumber(double v) {
  if (!std::isfinite(v)) return QStringLiteral("–");
  const double a = std::fabs(v);
  return (a != 0 && (a < 1e-3 || a >= 1e6)) ? QString::number(v, 'e', 2)
                                            : QString::number(v, 'g', 3);
}

QString withUnit(double v, const std::string& unit) {
  if (unit.empty() || !std::isfinite(v)) return shortNumber(v);
  return shortNumber(v) + (unit == "×" || unit == "%" ? QString() : QStringLiteral(" ")) +
         QString::fromStdString(unit);
}

/// The titles of the plots a lesson names (live plots from the catalog; sweep plots by name).
QString plotTitles(const std::vector<std::string>& ids) {
  QStringList titles;
  for (const std::string& id : ids) {
    QString title;
    for (const CanvasDef& def : plotCatalog()) {
      if (def.id.toStdString() == id) title = def.title;
    }
    if (const QString sweep = SweepPlots::title(QString::fromStdString(id)); !sweep.isEmpty()) {
      title = sweep + tr(" (Sweeps tab)");
    }
    if (!title.isEmpty()) titles << title;
  }
  return titles.join(QStringLiteral(" · "));
}

}  // namespace

QString lessonPlanText(const Lesson& l) {
  const size_t jobs = lessonJobs(l).size();
  QString hint = l.sweep     ? tr("A sweep of %1 runs.").arg(jobs)
                 : jobs == 1 ? tr("One run.")
                             : tr("%1 runs, one after the other.").arg(jobs);
  if (!l.plots.empty()) hint += tr(" Watch: %1.").arg(plotTitles(l.plots));
  return hint;
}

QString verdictCardHtml(const LessonVerdict& v, bool asked) {
  QString out = QStringLiteral("<h3>%1</h3>")
                    .arg(v.allHold() ? tr("✓ Every check holds") : tr("✗ Not every check holds"));
  if (v.prediction) {
    const PredictionVerdict& p = *v.prediction;
    out += QStringLiteral("<p><b>%1 %2</b><br>%3: <b>%4</b> · %5: <b>%6</b><br>%7</p>")
               .arg(p.correct ? QStringLiteral("✓") : QStringLiteral("✗"), tr("Your prediction"),
                    tr("you said"), html(p.predicted), tr("measured"), html(p.measured),
                    html(p.sentence));
  } else if (asked) {
    out += QStringLiteral("<p><i>%1</i></p>")
               .arg(tr("No prediction was given: next time, answer the question first."));
  }
  out +=
      QStringLiteral(
          "<table cellpadding='4'><tr><th></th><th align='left'>%1</th><th>%2</th><th>%3</th></tr>")
          .arg(tr("check"), tr("measured (90% interval)"), tr("theory"));
  for (const CheckVerdict& c : v.checks) {
    QString measured = withUnit(c.measured, c.unit);
    if (std::isfinite(c.low) && std::isfinite(c.high)) {
      measured += QStringLiteral(" [%1, %2]").arg(shortNumber(c.low), shortNumber(c.high));
    }
    QString theory =
        QString::fromStdString(c.compare) + QStringLiteral(" ") + withUnit(c.theory, c.unit);
    if (!c.tolerance.empty())
      theory += QStringLiteral("<br><small>%1</small>").arg(html(c.tolerance));
    out +=
        QStringLiteral(
            "<tr><td style='font-size:large; color:%1'>%2</td><td>%3</td><td align='center'>%4</td>"
            "<td align='center'>%5</td></tr><tr><td></td><td colspan='3'>%6</td></tr>")
            .arg(c.holds ? QStringLiteral("#1a7f37") : QStringLiteral("#c62828"),
                 c.holds ? QStringLiteral("✓") : QStringLiteral("✗"), html(c.name), measured,
                 theory, html(c.sentence));
  }
  out += QStringLiteral("</table>");
  return out;
}

}  // namespace accumlab::ui
