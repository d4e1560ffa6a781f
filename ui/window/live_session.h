// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <cstdint>
#include <functional>
#include <vector>

namespace accumlab {
struct RecordBatch;
}

namespace accumlab::ui {

struct RunData;
class ExperimentPanel;
class LiveRun;
class PlotGrid;
class RunStatusBar;
class RunsPanel;
class ShownRuns;
class TrainingController;

/// What a live run reaches on the GUI thread.
struct LiveParts {
  TrainingController* controller = nullptr;
  LiveRun* live = nullptr;
  ShownRuns* shown = nullptr;
  PlotGrid* plots = nullptr;
  RunStatusBar* status = nullptr;
  ExperimentPanel* experiment = nullptr;
  RunsPanel* runs = nullptr;
  std::function<void(const QString&)> show_error;
  /// Every arm of the stored experiment `run_id` belongs to (loadExperiments).
  std::function<std::vector<RunData>(int64_t run_id)> load_experiment;
};

/// The live run's flow: the controller's batches go into the LiveRun, which the shown runs
/// (and so the plots) and the status bar follow; the experiment panel and the runs list learn
/// of start and end; the drains are paced by what the plots cost. GUI thread.
class LiveSession : public QObject {
  Q_OBJECT

 public:
  LiveSession(LiveParts parts, QObject* parent);

  /// The next run continues the stored experiment of `run_id` from its checkpoint: the live
  /// run starts with what was stored up to the checkpoint, so that its read-outs (the pooled
  /// probe, the parting update, the steps) are the whole run's, as the store's are.
  void continueRun(int64_t run_id) { resumed_run_ = run_id; }

 private:
  /// The stored records of the resumed experiment up to the checkpoint, as one batch
  /// carrying `started`.
  RecordBatch storedHistory(const RecordBatch& first) const;
  void onStarted();
  void onBatch(const RecordBatch& batch);
  void offerHint();
  void onFinished(const QString& error, bool input_error);

  LiveParts p_;
  bool hinted_ = false;      ///< the LR-scaling hint was shown for this run
  int64_t resumed_run_ = 0;  ///< continueRun()'s run, until its first batch
};

}  // namespace accumlab::ui
