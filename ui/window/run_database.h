// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab {
class RunStore;
struct StoredRun;
}  // namespace accumlab

namespace accumlab::ui {

class TrainingController;

/// A stored run that can go on from its checkpoint (Runs tab → Resume).
struct ResumableRun {
  ExperimentConfig config;
  int64_t experiment_id = 0;
  std::string checkpoint;  ///< the checkpoint file
};

/// The app's run database: the GUI thread's own connection, and the file each run the
/// controller starts is stored in (with a checkpoint every kCheckpointEvery samples so that
/// a crashed run can be resumed). GUI thread.
class RunDatabase {
 public:
  /// Samples between the checkpoints of a stored run.
  static constexpr int64_t kCheckpointEvery = 10000;

  explicit RunDatabase(TrainingController* controller);
  ~RunDatabase();

  /// Opens (or creates) `path`, or stores nothing for an empty path, and points the
  /// controller's runs at it. On failure the app stores nothing and this throws what the
  /// store threw (a sentence naming the file).
  void open(const QString& path);
  RunStore* store() const { return store_.get(); }
  /// The open file, empty when nothing is stored.
  const QString& path() const { return path_; }

  /// Checks that run `run_id` can be resumed: it is interrupted and has its checkpoint.
  /// Throws InputError with the sentence to show otherwise.
  ResumableRun resumable(int64_t run_id) const;
  /// The runs the last started experiment stored, in arm order (empty when nothing is
  /// stored): as its sink reports them, never guessed from the store's newest rows.
  std::vector<StoredRun> storedRuns() const;

 private:
  TrainingController* controller_;
  std::unique_ptr<RunStore> store_;
  QString path_;
};

}  // namespace accumlab::ui
