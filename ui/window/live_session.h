// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <functional>

namespace accumlab {
struct RecordBatch;
}

namespace accumlab::ui {

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
};

/// The live run's flow: the controller's batches go into the LiveRun, which the shown runs
/// (and so the plots) and the status bar follow; the experiment panel and the runs list learn
/// of start and end; the drains are paced by what the plots cost. GUI thread.
class LiveSession : public QObject {
  Q_OBJECT

 public:
  LiveSession(LiveParts parts, QObject* parent);

 private:
  void onStarted();
  void onBatch(const RecordBatch& batch);
  void offerHint();
  void onFinished(const QString& error, bool input_error);

  LiveParts p_;
  bool hinted_ = false;  ///< the LR-scaling hint was shown for this run
};

}  // namespace accumlab::ui
