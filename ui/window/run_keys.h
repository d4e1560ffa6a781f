// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

class QAction;
class QWidget;

namespace accumlab::ui {

/// Space (Pause) and Esc (Stop) wherever the focus is in `window`: a focused slider, spin box
/// or button takes those keys for itself before the window's shortcuts see them, so this
/// application-wide event filter hands a key press the focused widget would eat to the
/// action instead. Text fields keep Space (it types); Esc always goes to Stop while it is
/// enabled. GUI thread.
class RunKeys : public QObject {
  Q_OBJECT

 public:
  RunKeys(QWidget* window, QAction* pause, QAction* stop);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* window_;
  QAction* pause_;
  QAction* stop_;
};

}  // namespace accumlab::ui
