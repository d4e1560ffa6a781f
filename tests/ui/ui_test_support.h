// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemModel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <functional>

#include "accumlab/experiment_config.h"

namespace accumlab::ui::test {

/// A small, fast experiment: spirals with an MLP, a few thousand samples per arm.
inline ExperimentConfig smallExperiment(int64_t samples = 6000) {
  ExperimentConfig c;
  c.data = "spirals";
  c.model = "mlp";
  c.micro_batch = 8;
  c.accum = 4;
  c.samples = samples;
  c.epochs = 0;
  c.eval_every = 2000;
  c.threads = 1;
  return c;
}

/// Keeps QSettings and app data of the tests away from the user's.
inline void isolateSettings() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("AccumLabTests");
  QCoreApplication::setApplicationName("AccumLabTests");
}

/// Processes events until `done` holds or `timeout_ms` passes; returns `done()`.
inline bool waitUntil(const std::function<bool()>& done, int timeout_ms = 30000) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < timeout_ms) QTest::qWait(10);
  return done();
}

/// Answers the next modal file dialog: shows `folder` in it, waits until the dialog has
/// listed it (its icons and types fetched, as a user would see them), then saves or opens
/// `choice` (a name in `folder`, or `folder` itself for a folder dialog), or cancels when
/// `choice` is empty.
class DialogAnswer : public QObject {
 public:
  DialogAnswer(QString folder, QString choice)
      : folder_(std::move(folder)), choice_(std::move(choice)) {
    timer_.setInterval(20);
    connect(&timer_, &QTimer::timeout, this, [this] { tick(); });
    timer_.start();
  }
  bool answered() const { return answered_; }

 private:
  void tick() {
    auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
    if (!dialog) return;
    if (!shown_) {
      // The dialog's model lists the folder on a thread of its own, with every file's icon
      // and type, whatever its name filter then hides.
      auto* model = dialog->findChild<QFileSystemModel*>();
      if (model) {
        connect(model, &QFileSystemModel::directoryLoaded, this, [this](const QString& path) {
          if (QDir(path) == QDir(folder_)) listed_ = true;
        });
      }
      dialog->setDirectory(folder_);
      shown_ = true;
      since_.start();
      return;
    }
    // A dialog that opens where the last one was has listed the folder before it was asked.
    auto* model = dialog->findChild<QFileSystemModel*>();
    const bool there = model && QDir(model->rootPath()) == QDir(folder_);
    if (!(listed_ && since_.elapsed() >= 300) && !(there && since_.elapsed() >= 1000)) return;
    timer_.stop();
    answered_ = true;
    // ACCUMLAB_DIALOG_SHOTS=DIR keeps a picture of each dialog, to look at.
    const QString shots = qEnvironmentVariable("ACCUMLAB_DIALOG_SHOTS");
    if (!shots.isEmpty()) {
      static int shot = 0;
      dialog->grab().save(QString("%1/dialog-%2.png").arg(shots).arg(shot++));
    }
    if (choice_.isEmpty()) {
      dialog->reject();
      return;
    }
    if (choice_ != folder_) {  // typed into the file name field
      auto* name = dialog->findChild<QLineEdit*>("fileNameEdit");
      if (name) name->setText(QFileInfo(choice_).fileName());
    }
    static_cast<QDialog*>(dialog)->accept();  // QFileDialog::accept(), as its Save button
  }

  QString folder_, choice_;
  QTimer timer_;
  QElapsedTimer since_;
  bool shown_ = false, listed_ = false, answered_ = false;
};

}  // namespace accumlab::ui::test
