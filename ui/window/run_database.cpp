#include "window/run_database.h"

#include <QFileInfo>

#include "accumlab/checkpoint_path.h"
#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "controller/training_controller.h"

namespace accumlab::ui {

RunDatabase::RunDatabase(TrainingController* controller) : controller_(controller) {}

RunDatabase::~RunDatabase() = default;

void RunDatabase::open(const QString& path) {
  store_.reset();
  path_.clear();
  ended_runs_.clear();
  controller_->setSinkFactory(nullptr);
  controller_->setCheckpointing(0, nullptr);
  if (path.isEmpty()) return;
  store_ = std::make_unique<RunStore>(path.toStdString());  // throws with the file's name
  path_ = path;
  const std::string file = path.toStdString();
  controller_->setSinkFactory([this, file](const ExperimentConfig&) -> std::unique_ptr<MetricsSink> {
    auto sink = std::make_unique<StoreSink>(file);
    if (resume_experiment_ > 0) sink->resumeExperiment(resume_experiment_);
    resume_experiment_ = 0;
    sink_ = sink.get();
    ended_runs_.clear();
    return sink;
  });
  // The path is asked on the training thread at the first save, when the sink has its ids.
  controller_->setCheckpointing(kCheckpointEvery, [this, file] {
    return sink_ ? checkpointPath(file, sink_->experimentId()) : std::string();
  });
}

void RunDatabase::runEnded() {
  if (sink_) ended_runs_ = sink_->runs();
  sink_ = nullptr;
}

std::vector<StoredRun> RunDatabase::storedRuns() const { return sink_ ? sink_->runs() : ended_runs_; }

ResumableRun RunDatabase::resumable(int64_t run_id) const {
  if (!store_) throw InputError("no run database is open");
  store_->markInterruptedRuns();
  const RunDetail run = store_->run(run_id);
  if (run.row.status != ArmStatus::kInterrupted) {
    throw InputError("Run " + std::to_string(run_id) + " is " + toString(run.row.status) +
                     ": only an interrupted run (its process died) can be resumed.");
  }
  ResumableRun r;
  r.config = run.config;
  r.experiment_id = run.row.experiment_id;
  r.checkpoint = checkpointPath(path_.toStdString(), run.row.experiment_id);
  if (!QFileInfo::exists(QString::fromStdString(r.checkpoint))) {
    throw InputError("Run " + std::to_string(run_id) + " cannot be resumed: it has no checkpoint (" +
                     r.checkpoint + "); it stopped before its first one.");
  }
  return r;
}

void RunDatabase::continueNext(const ResumableRun& run) { resume_experiment_ = run.experiment_id; }

}  // namespace accumlab::ui
