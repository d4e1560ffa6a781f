// SPDX-License-Identifier: GPL-3.0-or-later
#include "controller/cli_path.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace accumlab::ui {

QString accumlabCliPath() {
  const QString given = qEnvironmentVariable("ACCUMLAB_CLI");
  if (!given.isEmpty() && QFileInfo(given).isExecutable()) return given;
  const QDir here(QCoreApplication::applicationDirPath());
  for (const QString& candidate :
       {here.filePath("accumlab-cli"), here.filePath("../cli/accumlab-cli")}) {
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  }
  return QStandardPaths::findExecutable("accumlab-cli");
}

}  // namespace accumlab::ui
