// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>

class QCPAxisRect;
class QCPGraph;

namespace accumlab::ui {

/// The hover read-out of a plot at pixel column `x` of pane `rect`: the x value with the
/// axis's `x_label`, then each of `lines` on that pane at its nearest point, in its colour
/// (faint raw lines and lines whose nearest point is more than 40 px away left out). Rich text.
QString hoverText(const QCPAxisRect* rect, int x, const QString& x_label,
                  const QList<QCPGraph*>& lines);

/// A value as the hover read-out writes it: 5 significant digits, exponent form below 1e-3
/// and from 1e6, "–" for NaN.
QString hoverValue(double v);

}  // namespace accumlab::ui
