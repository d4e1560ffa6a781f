#pragma once

#include <QObject>
#include <QString>

namespace accumlab {
class LocalWorkers;
class MetricsSink;
class Trainer;
}  // namespace accumlab

namespace accumlab::ui {

/// Runs one Trainer::run() on the thread it was moved to. Lives on the training thread;
/// its only state is what train() receives.
class TrainingWorker : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

 public slots:
  /// Trains to the end (blocks this thread's event loop until then), then emits finished().
  /// With `workers` (ranks 1…N−1 of a data-parallel run), waits for them to exit too; one
  /// that did not exit cleanly is the run's error.
  void train(accumlab::Trainer* trainer, accumlab::MetricsSink* sink,
             accumlab::LocalWorkers* workers = nullptr);

 signals:
  /// The run ended; `error` is empty on success, `input_error` tells a user mistake from a bug.
  void finished(const QString& error, bool input_error);
};

}  // namespace accumlab::ui
