// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>
#include <cstdint>
#include <functional>

#include "accumlab/experiment_config.h"
#include "accumlab/sweep_event.h"

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

class StoreWatch;
class SweepPlots;
class SweepThread;

/// The Sweeps tab: picks a stored sweep and shows its points and plots (SweepPlots), and
/// starts new ones — a grid of effective batches and LRs on the current experiment, trained
/// as `accumlab-cli sweep` trains it (SweepThread: SweepRunner, the points in child
/// processes, several at once); the view refreshes as its events say points finish. Reads through
/// the GUI thread's RunStore (not owned). GUI thread.
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
  /// Follows one event of the sweep it trains: shows the sweep it started, refreshes as
  /// points end.
  void onSweepEvent(const SweepEvent& event);

 signals:
  void errorOccurred(const QString& message);
  /// A sweep started or ended (for the window's status line).
  void statusChanged(const QString& text);

 private:
  /// The sweep ended: `error` says why it could not train (empty when it did).
  void onSweepEnded(const QString& error, bool stopped);

  std::function<ExperimentConfig()> experiment_;
  RunStore* store_ = nullptr;
  StoreWatch* watch_;  ///< lists the sweeps again when another program wrote to the store
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
  SweepThread* sweep_;         ///< trains the sweep started here (a child of this panel)
  int64_t running_sweep_ = 0;  ///< the sweep it trains, once it said so
};

}  // namespace accumlab::ui
