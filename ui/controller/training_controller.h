#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/metrics_sink.h"
#include "accumlab/sweep.h"
#include "controller/metrics_buffer.h"
#include "accumlab/record_batch.h"

namespace accumlab {
class LocalWorkers;
class Trainer;
}

namespace accumlab::ui {

class TrainingWorker;

/// Starts, pauses and stops training on a background thread and delivers its records to the
/// GUI thread in batches (ARCHITECTURE.md, "Threads"). Created, used and destroyed on the GUI
/// thread; the Trainer it owns runs on `thread_` and is only touched from here through its
/// thread-safe request*() controls.
class TrainingController : public QObject {
  Q_OBJECT

 public:
  /// Makes extra sinks for a run (e.g. the run store); called on the GUI thread at start,
  /// the sink is then used on the training thread only. May throw to report a problem.
  using SinkFactory = std::function<std::unique_ptr<MetricsSink>(const ExperimentConfig&)>;

  /// The fastest the GUI is fed: 30 Hz.
  static constexpr int kDrainIntervalMs = 33;

  explicit TrainingController(QObject* parent = nullptr);
  /// Stops a running experiment and waits for the training thread to end.
  ~TrainingController() override;

  /// Sets the factory of the extra sink used by every following start().
  void setSinkFactory(SinkFactory factory);
  /// Starts training `config` in the background; false (and startFailed()) if it cannot.
  /// With a target, every arm stops once it reaches it (a sweep point, a lesson).
  bool start(const ExperimentConfig& config, const std::optional<SweepTarget>& target = std::nullopt);
  /// Continues a run from a checkpoint (Trainer::resumeFrom) like start() starts one; the
  /// sink factory's store sink must take the stored runs over (StoreSink::resumeExperiment).
  bool resume(const ExperimentConfig& config, const std::string& checkpoint);
  /// Checkpoints every following run every `samples` samples to the file `path` names (asked
  /// on the training thread at the first save); 0 turns it off.
  void setCheckpointing(int64_t samples, std::function<std::string()> path);
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
  /// Paces the drains: after each, the period becomes kGuiShare × what handling the batch
  /// cost (the batchReady slots, plus `later_cost_ms()`: work they queued, e.g. a replot),
  /// between kDrainIntervalMs and kSlowestDrainMs. So the plots update at 30 Hz while that is
  /// cheap and keep ~1/kGuiShare of one core on a slow machine, never slowing training.
  void setPacing(std::function<double()> later_cost_ms);
  static constexpr double kGuiShare = 10.0;
  static constexpr int kSlowestDrainMs = 250;

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
  std::unique_ptr<Trainer> trainer_;
  std::unique_ptr<LocalWorkers> workers_;  ///< ranks 1…N−1 of a data-parallel run
  MetricsBuffer buffer_;
  std::unique_ptr<MetricsSink> extra_sink_;
  std::unique_ptr<MetricsSink> target_sink_;
  ExperimentConfig config_;
  std::string resume_from_;  ///< set by resume() for the start it makes
  int64_t checkpoint_every_ = 0;
  std::function<std::string()> checkpoint_path_;
  std::unique_ptr<FanOutSink> fan_out_;
  SinkFactory sink_factory_;
  QTimer drain_timer_;
  std::function<double()> later_cost_ms_;
  bool running_ = false;
  bool paused_ = false;
};

}  // namespace accumlab::ui
