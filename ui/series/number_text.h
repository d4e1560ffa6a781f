// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <cmath>

namespace accumlab::ui {

/// `v` to `digits` significant digits, or "–" where it is not a number (a value a run did not
/// reach, or an older store lacks): the tables' and read-outs' one way to show a number.
inline QString numberText(double v, int digits) {
  return std::isfinite(v) ? QString::number(v, 'g', digits) : QStringLiteral("–");
}

}  // namespace accumlab::ui
