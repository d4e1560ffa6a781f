// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

class QWidget;

namespace accumlab::ui {

/// Keeps the mouse wheel from changing combo boxes and spin boxes that the user has not
/// clicked into: scrolling a panel over them once switched "Short last window" from stream
/// to drop. Such a box takes focus only by click or Tab, and a wheel over a box the user has
/// not clicked or tabbed into goes on to the panel, which scrolls. GUI thread.
class WheelGuard : public QObject {
  Q_OBJECT

 public:
  /// Guards every combo box and spin box inside `root` (as they are now); the guard is a
  /// child of `root`.
  static void protect(QWidget* root);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  explicit WheelGuard(QObject* parent) : QObject(parent) {}
};

}  // namespace accumlab::ui
