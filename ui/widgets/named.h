// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace accumlab::ui {

/// Gives `widget` (a QWidget or QAction) its object name, which tests, style sheets and the
/// saved window state find it by, and its tooltip, when `tip` is not empty; returns it, so that
/// a widget is made, named and explained in one statement.
template <typename W>
W* named(W* widget, const char* name, const QString& tip = QString()) {
  widget->setObjectName(name);
  if (!tip.isEmpty()) widget->setToolTip(tip);
  return widget;
}

}  // namespace accumlab::ui
