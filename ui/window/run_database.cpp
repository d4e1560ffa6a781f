// SPDX-License-Identifier: GPL-3.0-or-later
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
  controller_->setStore(std::string(), 0);
  if (path.isEmpty()) return;
  store_ = std::make_unique<RunStore>(path.toStdString());  // throws with the file's name
  path_ = path;
  controller_->setStore(path.toStdString(), kCheckpointEvery);
}

std::vector<StoredRun> RunDatabase::storedRuns() const { return controller_->storedRuns(); }

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
    throw InputError("Run " + std::to_string(run_id) +
                     " cannot be resumed: it has no checkpoint (" + r.checkpoint +
                     "); it stopped before its first one.");
  }
  return r;
}

}  // namespace accumlab::ui
