// SPDX-License-Identifier: GPL-3.0-or-later
#include "series/store_watch.h"

#include <QFileInfo>
#include <QTimer>

namespace accumlab::ui {

StoreWatch::StoreWatch(std::function<bool()> wanted, QObject* parent, int interval_ms)
    : QObject(parent), wanted_(std::move(wanted)), timer_(new QTimer(this)) {
  timer_->setInterval(interval_ms);
  connect(timer_, &QTimer::timeout, this, &StoreWatch::look);
  timer_->start();
}

void StoreWatch::follow(const std::string& path) {
  path_ = QString::fromStdString(path);
  seen_ = signature();
}

QString StoreWatch::signature() const {
  if (path_.isEmpty()) return QString();
  QString signature;
  for (const QString& file : {path_, path_ + "-wal"}) {
    const QFileInfo info(file);
    signature += QString("%1:%2;").arg(info.size()).arg(info.lastModified().toMSecsSinceEpoch());
  }
  return signature;
}

void StoreWatch::look() {
  if (path_.isEmpty() || (wanted_ && !wanted_())) return;
  const QString now = signature();
  if (now == seen_) return;
  seen_ = now;
  emit changed();
}

}  // namespace accumlab::ui
