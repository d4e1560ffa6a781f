// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <functional>
#include <vector>

#include "accumlab/run_store.h"

class QAction;
class QWidget;

namespace accumlab::ui {

/// File → Save trained model…: the run selected in the Runs tab as a TorchScript file that
/// plain PyTorch loads (ModelExporter, the same as `accumlab-cli export-model`). GUI thread.
class ModelSaveAction : public QObject {
  Q_OBJECT

 public:
  /// `selected` gives the ids of the runs selected in the Runs tab, `store` the open run
  /// database (null: none).
  ModelSaveAction(QWidget* window, std::function<std::vector<int64_t>()> selected,
                  std::function<RunStore*()> store);

  /// The menu's action.
  QAction* action() const { return action_; }
  /// Asks for a file and saves the model of the one selected run.
  void save();
  /// Saves the model of run `run_id` to `path` without a dialog; false after errorOccurred.
  bool saveTo(int64_t run_id, const QString& path);

 signals:
  void errorOccurred(const QString& message);
  /// The model was written to `path`.
  void saved(const QString& path);

 private:
  QWidget* window_;
  std::function<std::vector<int64_t>()> selected_;
  std::function<RunStore*()> store_;
  QAction* action_;
};

}  // namespace accumlab::ui
