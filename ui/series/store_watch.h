// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <string>

class QTimer;

namespace accumlab::ui {

/// Says when another program wrote to the run store (accumlab-cli run, merge or sweep beside
/// the app), so that a view of the store follows it without Refresh. Every couple of seconds,
/// while its view wants it, it compares the size and modification time of the store's file and
/// its write-ahead log, from the file system's own record of them: it never opens them
/// (closing a descriptor of the store would drop this process's locks on it). GUI thread.
class StoreWatch : public QObject {
  Q_OBJECT

 public:
  /// Looks every `interval_ms` while `wanted()` is true (e.g. while its view is on screen); a
  /// change made while it was not wanted is told at the first look after.
  StoreWatch(std::function<bool()> wanted, QObject* parent, int interval_ms = kIntervalMs);

  /// Follows the store at `path` (empty: none) from what its files hold now.
  void follow(const std::string& path);

  static constexpr int kIntervalMs = 2000;

 signals:
  /// The store's files changed since the last look.
  void changed();

 private:
  void look();
  /// The files' sizes and times; empty without a store.
  QString signature() const;

  std::function<bool()> wanted_;
  QTimer* timer_;
  QString path_;
  QString seen_;  ///< signature() at the last look
};

}  // namespace accumlab::ui
