// SPDX-License-Identifier: GPL-3.0-or-later
#include "files/model_save_action.h"

#include <QAction>
#include <QWidget>
#include <exception>

#include "accumlab/model_exporter.h"
#include "files/file_dialogs.h"

namespace accumlab::ui {

ModelSaveAction::ModelSaveAction(QWidget* window, std::function<std::vector<int64_t>()> selected,
                                 std::function<RunStore*()> store)
    : QObject(window), window_(window), selected_(std::move(selected)), store_(std::move(store)) {
  action_ = new QAction(tr("Save trained &model…"), this);
  action_->setObjectName("saveTrainedModel");
  action_->setToolTip(
      tr("Save the final weights of the run selected in the Runs tab as a TorchScript file that "
         "PyTorch loads with torch.jit.load"));
  connect(action_, &QAction::triggered, this, &ModelSaveAction::save);
}

void ModelSaveAction::save() {
  const std::vector<int64_t> ids = selected_();
  if (ids.size() != 1) {
    emit errorOccurred(tr("Select one run in the Runs tab to save its trained model (%1 selected).")
                           .arg(ids.size()));
    return;
  }
  RunStore* store = store_();
  if (!store) {
    emit errorOccurred(
        tr("The app stores nothing now, so no run kept a model: choose a run "
           "database (File → Run database…)."));
    return;
  }
  QString suggested;
  try {
    const RunRow run = store->run(ids.front()).row;
    suggested = QStringLiteral("run-%1-%2.pt")
                    .arg(run.id)
                    .arg(QString::fromStdString(toString(run.arm)).replace(':', '-'));
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
    return;
  }
  const QString path = file_dialogs::saveFile(window_, tr("Save trained model"), suggested,
                                              tr("TorchScript models (*.pt);;All files (*)"));
  if (path.isEmpty()) return;
  saveTo(ids.front(), path);
}

bool ModelSaveAction::saveTo(int64_t run_id, const QString& path) {
  RunStore* store = store_();
  if (!store) {
    emit errorOccurred(tr("No run database is open."));
    return false;
  }
  try {
    ModelExporter(*store).write(run_id, path.toStdString());
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
    return false;
  }
  emit saved(path);
  return true;
}

}  // namespace accumlab::ui
