// SPDX-License-Identifier: GPL-3.0-or-later
#include "files/experiment_file.h"

#include <QSaveFile>

#include "accumlab/input_error.h"
#include "files/file_dialogs.h"

namespace accumlab::ui::experiment_file {

namespace {
QString filter() { return QObject::tr("Experiments (*.json);;All files (*)"); }
}  // namespace

std::optional<ExperimentConfig> open(QWidget* parent) {
  const QString path =
      file_dialogs::openFile(parent, QObject::tr("Open an experiment"), QString(), filter());
  if (path.isEmpty()) return std::nullopt;
  ExperimentConfig config = loadConfigFile(path.toStdString());
  try {
    validateConfig(config);
  } catch (const InputError& e) {
    throw InputError(path.toStdString() + ": " + e.what());
  }
  return config;
}

QString save(QWidget* parent, const ExperimentConfig& config) {
  QString path = file_dialogs::saveFile(parent, QObject::tr("Save the experiment"),
                                        QStringLiteral("experiment.json"), filter());
  if (path.isEmpty()) return path;
  QSaveFile file(path);
  const QByteArray json = QByteArray::fromStdString(configToJson(config) + "\n");
  if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
    throw InputError(path.toStdString() + ": cannot write the experiment (" +
                     file.errorString().toStdString() + ")");
  }
  return path;
}

}  // namespace accumlab::ui::experiment_file
