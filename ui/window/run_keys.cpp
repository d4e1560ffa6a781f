// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/run_keys.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>
#include <QWidget>

namespace accumlab::ui {

namespace {

/// A widget where Space types a character (a spin box's line edit does not count).
bool takesText(const QWidget* w) {
  if (qobject_cast<const QTextEdit*>(w) || qobject_cast<const QPlainTextEdit*>(w)) return true;
  if (const auto* edit = qobject_cast<const QLineEdit*>(w)) {
    return !edit->isReadOnly() && !qobject_cast<const QAbstractSpinBox*>(edit->parentWidget());
  }
  return false;
}

}  // namespace

RunKeys::RunKeys(QWidget* window, QAction* pause, QAction* stop)
    : QObject(window), window_(window), pause_(pause), stop_(stop) {
  qApp->installEventFilter(this);
}

bool RunKeys::eventFilter(QObject* watched, QEvent* event) {
  // A key press reaches the focused widget only when no shortcut took it.
  if (event->type() != QEvent::KeyPress) return false;
  auto* key = static_cast<QKeyEvent*>(event);
  if (key->modifiers() != Qt::NoModifier || key->isAutoRepeat()) return false;
  auto* target = qobject_cast<QWidget*>(watched);
  if (!target || target->window() != window_ || target != QApplication::focusWidget()) return false;
  if (key->key() == Qt::Key_Space && pause_->isEnabled() && !takesText(target)) {
    pause_->trigger();
    return true;
  }
  if (key->key() == Qt::Key_Escape && stop_->isEnabled()) {
    stop_->trigger();
    return true;
  }
  return false;
}

}  // namespace accumlab::ui
