// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/elided_label.h"

#include <QFontMetrics>
#include <QResizeEvent>

namespace accumlab::ui {

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setFullText(text);
}

void ElidedLabel::setFullText(const QString& text) {
  full_ = text;
  setToolTip(text);
  updateGeometry();
  updateShown();
}

QSize ElidedLabel::sizeHint() const {
  const QMargins m = contentsMargins();
  return {fontMetrics().horizontalAdvance(full_) + m.left() + m.right() + 2 * margin() + 2,
          QLabel::sizeHint().height()};
}

QSize ElidedLabel::minimumSizeHint() const {
  // Room for a few characters and the ellipsis.
  const QMargins m = contentsMargins();
  const int least = fontMetrics().horizontalAdvance(QStringLiteral("Wwww…"));
  return {std::min(least, sizeHint().width()) + m.left() + m.right(),
          QLabel::minimumSizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  updateShown();
}

void ElidedLabel::updateShown() {
  const int room = contentsRect().width() - 2 * margin() - 2;
  const QString shown = fontMetrics().horizontalAdvance(full_) <= room
                            ? full_
                            : fontMetrics().elidedText(full_, Qt::ElideRight, std::max(0, room));
  if (shown != text()) setText(shown);
}

}  // namespace accumlab::ui
