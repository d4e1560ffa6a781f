// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/metrics_sink.h"
#include "accumlab/record_batch.h"
#include "accumlab/sweep.h"
#include "controller/metrics_buffer.h"

namespace accumlab {
class RunSession;
struct StoredRun;
}  // namespace accumlab

namespace accumlab::ui {

class TrainingWorker;

/// Starts, pauses and stops training on a background thread and delivers its records to the
/// GUI thread in batches (ARCHITECTURE.md, "Threads"). Created, used and destroyed on the GUI
/// thread; the Trainer it owns runs on `thread_` and is only touched from here through its
/// thread-safe request*() controls.
class TrainingController : public QObject {
  Q_OBJECT

 public:
  /// The fastest the GUI is fed: 30 Hz.
  static constexpr int kDrainIntervalMs = 33;

  explicit TrainingController(QObject* parent = nullptr);
  /// Stops a running experiment and waits for the training thread to end.
  ~TrainingController() override;

  /// Stores every following run in the run database `path` (empty: nothing is stored) and,
  /// with `checkpoint_every` > 0, checkpoints each run that has no data-parallel ranks every
  /// this many samples beside it, so that resume() can continue it after a crash.
  void setStore(std::string path, int64_t checkpoint_every);
  /// Starts training `config` in the background; false (and startFailed()) if it cannot.
  /// With a target, every arm stops once it reaches it (a sweep point, a lesson). With
  /// `recorder`, the run's records also go to it, on the training thread, after the store
  /// and before the GUI's batches (a lesson's LessonRecorder, as `accumlab-cli lesson run`
  /// trains with); the controller keeps it until the next start().
  bool start(const ExperimentConfig& config,
             const std::optional<SweepTarget>& target = std::nullopt,
             std::shared_ptr<MetricsSink> recorder = nullptr);
  /// Continues stored experiment `experiment_id` from its checkpoint beside the store, like
  /// start() starts a run; its stored runs are taken over.
  bool resume(const ExperimentConfig& config, int64_t experiment_id);
  /// The runs the last started experiment stored, in arm order (empty when nothing is
  /// stored): as its store sink reports them, never guessed from the store's newest rows.
  std::vector<StoredRun> storedRuns() const;
  /// The config of the run started last.
  const ExperimentConfig& config() const { return config_; }
  /// Pauses at the next window boundary.
  void pause();
  void resume();
  /// Stops every arm at the next window boundary; finished() follows.
  void stop();
  /// Changes m / K for the next window of every arm (recorded by the trainer as an event).
  void setMicroBatch(int64_t m);
  void setAccum(int64_t k);
  /// True from start() until finished() is emitted.
  bool isRunning() const { return running_; }
  /// True while a pause is requested.
  bool isPaused() const { return paused_; }
  /// The period of the drain timer (≥ kDrainIntervalMs).
  void setDrainInterval(int ms);
  /// Paces the drains: after each, the period becomes the GUI's share × what handling the
  /// batch cost (the batchReady slots, plus `later_cost_ms()`: work they queued, e.g. a
  /// replot), between kDrainIntervalMs and kSlowestDrainMs. So the plots update at 30 Hz
  /// while that is cheap and keep ~1/kGuiShare of one core on a slow machine; when training
  /// keeps every core busy (guiShare), what the GUI takes comes out of training, and it keeps
  /// half that.
  void setPacing(std::function<double()> later_cost_ms);
  static constexpr double kGuiShare = 10.0;
  static constexpr double kGuiShareAllCoresTraining = 20.0;
  static constexpr int kSlowestDrainMs = 250;
  /// The drain period's multiple of the handling cost for `config` on a machine of `cores`:
  /// kGuiShareAllCoresTraining when its CPU training threads (arms at once × torch threads,
  /// or data-parallel workers) fill every core, kGuiShare otherwise.
  static double guiShare(const ExperimentConfig& config, int cores, bool cuda);

 signals:
  /// Training began on the background thread.
  void started();
  /// start() refused: already running, or the trainer or an extra sink could not be made.
  void startFailed(const QString& error);
  /// New records, delivered on the GUI thread at most every drain interval.
  void batchReady(const accumlab::RecordBatch& batch);
  void pausedChanged(bool paused);
  /// Training ended; `error` is empty unless the run could not start or broke.
  void finished(const QString& error, bool input_error);

 private slots:
  void drain();
  void onWorkerFinished(const QString& error, bool input_error);

 private:
  QThread thread_;
  TrainingWorker* worker_ = nullptr;  ///< lives on thread_, deleted after it stops
  /// The run started last (kept after it ends, for storedRuns()).
  std::unique_ptr<RunSession> session_;
  MetricsBuffer buffer_;
  /// start()'s recorder: written on the training thread while a run trains, read by its
  /// owner once finished() has been emitted.
  std::shared_ptr<MetricsSink> recorder_;
  ExperimentConfig config_;
  double gui_share_ = kGuiShare;  ///< guiShare() of the running experiment
  std::string store_path_;        ///< setStore()'s database, empty: nothing stored
  int64_t checkpoint_every_ = 0;
  int64_t resume_experiment_ = 0;  ///< set by resume() for the start it makes
  QTimer drain_timer_;
  std::function<double()> later_cost_ms_;
  bool running_ = false;
  bool paused_ = false;
};

}  // namespace accumlab::ui
