// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QProcess>
#include <QWidget>
#include <cstdint>
#include <functional>

#include "accumlab/experiment_config.h"
#include "sweep/sweep_progress.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace accumlab {
class RunStore;
}

namespace accumlab::ui {

class SweepPlots;

/// The Sweeps tab: picks a stored sweep and shows its points and plots (SweepPlots), and
/// starts new ones — a grid of effective batches and LRs on the current experiment, trained
/// by `accumlab-cli sweep --progress jsonl` in a child process (its workers train the points
/// in parallel); the view refreshes as its progress objects say points finish. Reads through the
/// GUI thread's RunStore (not owned). GUI thread.
class SweepPanel : public QWidget {
  Q_OBJECT

 public:
  /// `experiment` gives the config the sweep's points start from.
  explicit SweepPanel(std::function<ExperimentConfig()> experiment, QWidget* parent = nullptr);
  ~SweepPanel() override;

  /// Uses `store` (nullptr: no database) at `path` and lists its sweeps.
  void setStore(RunStore* store, const QString& path);
  /// Re-reads the sweeps, keeping the one shown.
  void refresh();
  /// Shows sweep `id` (0: none).
  void showSweep(int64_t id);
  int64_t shownSweep() const;
  /// Starts a sweep with the grid fields; false with errorOccurred() when it cannot.
  bool startSweep();
  bool isRunning() const;
  /// Asks a running sweep to stop its points at their next window boundary.
  void stopSweep();
  SweepPlots* plots() const { return plots_; }
  /// Writes the shown sweep's HTML report to `path`; false with errorOccurred() otherwise.
  bool saveReport(const QString& path);
  /// Writes the shown sweep's plots into `folder` as <id>.<format> (png, svg or pdf).
  bool savePlots(const QString& folder, const QString& format);
  /// Takes the next bytes of the sweep's progress stream (its child's stderr): shows the
  /// sweep it started, refreshes as points end and keeps its error. Only JSON progress
  /// objects count; any other text is ignored.
  void readProgress(const QByteArray& bytes);

 signals:
  void errorOccurred(const QString& message);
  /// A sweep started or ended (for the window's status line).
  void statusChanged(const QString& text);

 private:
  void onOutput();
  void onFinished(int exit_code, QProcess::ExitStatus status);

  std::function<ExperimentConfig()> experiment_;
  RunStore* store_ = nullptr;
  QString db_path_;
  QComboBox* picker_;
  QLineEdit* batches_;
  QLineEdit* micro_;
  QLineEdit* lrs_;
  QDoubleSpinBox* target_;
  QSpinBox* jobs_;
  QComboBox* recipe_;  ///< the arm every point trains: accum or a pitfall arm
  QPushButton* run_;
  QPushButton* stop_;
  QLabel* summary_;
  QTableWidget* table_;
  SweepPlots* plots_;
  QProcess* process_;
  QString config_file_;
  SweepProgress progress_;     ///< reads the child's stderr
  int64_t running_sweep_ = 0;  ///< the sweep the child trains, once it said so
  QString error_;              ///< the child's error object's message, if it sent one
};

}  // namespace accumlab::ui
