// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/wheel_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QFocusEvent>
#include <QWidget>

namespace accumlab::ui {

void WheelGuard::protect(QWidget* root) {
  auto* guard = new WheelGuard(root);
  QList<QWidget*> boxes;
  for (QComboBox* box : root->findChildren<QComboBox*>()) boxes << box;
  for (QAbstractSpinBox* box : root->findChildren<QAbstractSpinBox*>()) boxes << box;
  for (QWidget* box : boxes) {
    box->setFocusPolicy(Qt::StrongFocus);  // not Qt::WheelFocus: the wheel gives no focus
    box->installEventFilter(guard);
  }
}

namespace {
/// Set on a box while it has the focus the user gave it (a click, Tab), not the focus a
/// window hands its first box when it opens.
constexpr char kChosen[] = "accumlabWheelChosen";
}  // namespace

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::FocusIn) {
    const Qt::FocusReason reason = static_cast<QFocusEvent*>(event)->reason();
    watched->setProperty(kChosen, reason == Qt::MouseFocusReason || reason == Qt::TabFocusReason ||
                                      reason == Qt::BacktabFocusReason ||
                                      reason == Qt::ShortcutFocusReason);
  } else if (event->type() == QEvent::FocusOut) {
    watched->setProperty(kChosen, false);
  }
  if (event->type() != QEvent::Wheel) return QObject::eventFilter(watched, event);
  auto* box = static_cast<QWidget*>(watched);
  if (box->hasFocus() && box->property(kChosen).toBool()) return false;  // the wheel steps it
  // Ignored and filtered out, the event goes on to the parents (the scroll area).
  event->ignore();
  return true;
}

}  // namespace accumlab::ui
