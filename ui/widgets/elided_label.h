// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>
#include <QString>

namespace accumlab::ui {

/// A one-line plain-text label that gives way when its row is short: it shows as much of its
/// text as fits, ending in "…", with the whole text in its tooltip, instead of widening the
/// window (a status bar on a 1024×768 screen). GUI thread.
class ElidedLabel : public QLabel {
  Q_OBJECT

 public:
  explicit ElidedLabel(const QString& text = QString(), QWidget* parent = nullptr);

  /// Sets the whole text; what shows is elided to the label's width.
  void setFullText(const QString& text);
  const QString& fullText() const { return full_; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateShown();

  QString full_;
};

}  // namespace accumlab::ui
