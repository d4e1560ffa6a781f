// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QStatusBar>

#include "series/run_data.h"

class QLabel;

namespace accumlab::ui {
class ElidedLabel;
}
class QProgressBar;

namespace accumlab::ui {

class LiveRun;

/// The main window's status bar: state, progress (samples done / budget), ETA, samples/s per
/// arm (and tokens/s for text), device and database. GUI thread.
class RunStatusBar : public QStatusBar {
  Q_OBJECT

 public:
  explicit RunStatusBar(QWidget* parent = nullptr);

  /// Follows `live` (not owned; it must outlive the bar): progress, ETA and throughput as
  /// batches arrive, its events as messages, and its end state.
  void setLiveRun(const LiveRun* live);
  /// Shows a state word ("Ready", "Loading data…", "Training", "Paused", "Finished", …).
  void setState(const QString& state);
  /// While paused the ETA says so instead of a time.
  void setPaused(bool paused);
  /// Updates progress, ETA and throughput from the live run.
  void showProgress(const RunData& run);
  /// Shows an event that changes what the curves mean (a change of m or K, an arm that
  /// diverged or failed, a note on the model, a rejected change, an arm out of memory) as a
  /// message; pauses, stops and dropped samples show elsewhere.
  void showEvent(const EventRecord& e);
  /// The state at the end of a run: Failed, Stopped (an arm was stopped) or Finished.
  void showFinished(const RunData* run, bool failed);
  /// Clears progress and throughput for a new run.
  void resetProgress();
  /// Clears progress, ETA and throughput; `shown`: keeps the progress bar on screen (false
  /// while what is shown is no live run, e.g. stored runs).
  void clearProgress(bool shown = false);
  void setDevice(const QString& device);
  void setDatabase(const QString& path);
  /// The message shown in the state's place; empty when none (for tests).
  QString messageText() const;
  /// The state word shown (for tests).
  QString stateText() const;
  /// The text of the throughput read-out (for tests).
  QString throughputText() const;
  /// What the throughput read-out's tooltip says it counts (for tests).
  QString throughputTip() const;
  /// "ETA 0:12", "took 0:40" or "stopped at 20% after 0:08" (for tests).
  QString etaText() const;
  /// Whether the progress bar is on screen (a status message must not hide it).
  bool progressShown() const;
  /// The progress in percent, 0–100.
  int progressPercent() const;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  ElidedLabel* state_;
  ElidedLabel* message_;  ///< a status message, in the state's place while it shows
  bool paused_ = false;
  QProgressBar* progress_;
  ElidedLabel* eta_;
  QLabel* throughput_;
  ElidedLabel* device_;
  ElidedLabel* database_;
};

}  // namespace accumlab::ui
