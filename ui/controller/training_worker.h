// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <vector>

namespace accumlab {
class MetricsSink;
class RunSession;
}  // namespace accumlab

namespace accumlab::ui {

/// Runs one RunSession on the thread it was moved to. Lives on the training thread;
/// its only state is what train() receives.
class TrainingWorker : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

 public slots:
  /// Trains to the end (blocks this thread's event loop until then), reporting to `sinks`
  /// after the session's store, then waits for the store's last commit and for the
  /// data-parallel ranks (RunSession::finish): a rank that did not exit cleanly, or a store
  /// that could not be written, is the run's error. Then emits finished().
  void train(accumlab::RunSession* session, const std::vector<accumlab::MetricsSink*>& sinks);

 signals:
  /// The run ended; `error` is empty on success, `input_error` tells a user mistake from a bug.
  void finished(const QString& error, bool input_error);
};

}  // namespace accumlab::ui
