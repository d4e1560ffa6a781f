// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include "accumlab/record_batch.h"
#include "series/run_data.h"

namespace accumlab::ui {

/// The live run's history, kept outside every view: it takes the controller's drained
/// batches, owns the RunData, and tells its subscribers (plots, status bar, hints, export)
/// what arrived. GUI thread.
class LiveRun : public QObject {
  Q_OBJECT

 public:
  explicit LiveRun(QObject* parent = nullptr);

  /// Drops the previous run's history and starts a new one named `label` (emits begun()).
  void begin(const QString& label);
  /// Appends a drained batch to the run begun last; the first batch of a run carries its
  /// RunInfo. Emits appended(),
  /// then eventAdded() for each event and armEnded() for each arm that ended in it.
  void append(const RecordBatch& batch);
  /// Marks the run over (emits ended()); its history stays until the next begin().
  void end(bool failed);

  /// The run so far (empty before the first begin()).
  const RunData& data() const { return data_; }
  /// Whether begin() was called and end() not yet.
  bool isRunning() const { return running_; }

 signals:
  /// A new run started; what was shown of the previous one is stale.
  void begun();
  /// `batch`'s records are now part of data().
  void appended(const RecordBatch& batch);
  /// An event of the run (a change of m or K, a pause, an arm that diverged, …).
  void eventAdded(const EventRecord& event);
  /// `arm` ended (finished, stopped, diverged or failed); its summary is in data().
  void armEnded(ArmKind arm);
  /// The run is over; `failed` when it stopped on an error.
  void ended(bool failed);

 private:
  RunData data_;
  bool running_ = false;
};

}  // namespace accumlab::ui
