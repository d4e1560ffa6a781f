// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/hover_text.h"

#include <qcustomplot.h>

#include <cmath>

namespace accumlab::ui {

QString hoverValue(double v) {
  if (std::isnan(v)) return QStringLiteral("–");
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e6)) return QString::number(v, 'e', 3);
  return QString::number(v, 'g', 5);
}

QString hoverText(const QCPAxisRect* rect, int x, const QString& x_label,
                  const QList<QCPGraph*>& lines) {
  const double key = rect->axis(QCPAxis::atBottom)->pixelToCoord(x);
  QString text = QString("<b>%1</b> %2").arg(hoverValue(key), x_label);
  for (QCPGraph* g : lines) {
    if (g->keyAxis()->axisRect() != rect || g->dataCount() == 0) continue;
    if (g->property("faint").toBool()) continue;  // the smoothed line says it better
    auto it = g->data()->findBegin(key, false);
    if (it == g->data()->constEnd()) --it;
    if (it != g->data()->constBegin()) {
      auto prev = it - 1;
      if (std::fabs(prev->key - key) < std::fabs(it->key - key)) it = prev;
    }
    // Skip lines whose nearest point is off screen (e.g. a run that ended earlier).
    if (std::fabs(g->keyAxis()->coordToPixel(it->key) - x) > 40) continue;
    text += QString("<br><span style='color:%1'>■</span> %2: %3")
                .arg(g->pen().color().name(), g->name().toHtmlEscaped(), hoverValue(it->value));
  }
  return text;
}

}  // namespace accumlab::ui
