// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>
#include <utility>
#include <vector>

#include "accumlab/experiment_config.h"

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTimer;

namespace accumlab::ui {

class BatchSlider;
class MemoryEstimator;
class OptimizerForm;
class PitfallPicker;
class SourcePickers;

/// The experiment editor of the main window's dock: data, model, m and K sliders, arms,
/// optimizer and LR rule, window policy, dtype, budget, evaluation, seed and device.
/// Reads and writes an ExperimentConfig; fields it does not show keep their values.
/// GUI thread.
class ExperimentPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ExperimentPanel(QWidget* parent = nullptr);

  /// The config the widgets describe. A memory budget that is not a size counts as none;
  /// checkMemoryBudget() says so.
  ExperimentConfig config() const;
  /// Throws InputError quoting the memory budget field when it is neither empty nor a size.
  void checkMemoryBudget() const;
  /// Shows `config` (unknown data or model specs are added to the pickers).
  void setConfig(const ExperimentConfig& config);
  /// While running only m and K stay editable (they apply at the next window boundary).
  void setRunning(bool running);
  /// A lesson trains its own experiment: the form is locked and says so, and keeps the
  /// user's settings for after the lesson (nothing here changes).
  void setLessonRunning(bool running);
  /// Adds buttons for the Run, Pause and Stop actions below the form.
  void setRunActions(QAction* run, QAction* pause, QAction* stop);
  /// Selects the dataset or TorchScript model at `path`; false with a message otherwise.
  bool openPath(const QString& path, QString* error);
  /// The run database in use: opening it as a dataset or model is refused before it is read
  /// (reading it would drop the app's locks on it).
  void setStorePath(const QString& path);
  /// The line under the sliders that says which share of big-batch's tensor memory accum
  /// needs on this model (memoryRatioText; empty until the probes of the model have run).
  QString memoryEstimateText() const;

 signals:
  /// The user settled on a new micro-batch size m or accumulation count K.
  void microBatchChanged(qint64 m);
  void accumChanged(qint64 k);
  /// Any field changed (for saving the last experiment).
  void configEdited();
  /// A file or folder was opened (for the recent-files list).
  void pathOpened(const QString& path);
  /// Opening failed; the message names the path and what was expected.
  void openFailed(const QString& message);

 private:
  QWidget* buildBatchGroup();
  QWidget* buildTrainingGroup();
  void updateDerivedLabels();
  /// Asks the estimator for the current model and data (soon, not on every keystroke).
  void scheduleMemoryProbe();
  /// Once the probe read a file the user opened: keeps it, or says why it does not load.
  void checkOpenedFile();
  /// Sets m and K so that an update's predicted tensors fit the budget field, keeping m·K.
  void fitMemoryBudget();
  /// After m or K changed from `before` (the config then): the labels, and a signal for
  /// each that changed.
  void batchChanged(const ExperimentConfig& before);

  ExperimentConfig base_;   ///< fields the panel does not show
  SourcePickers* sources_;  ///< data, model and the CSV's label and task
  BatchSlider* micro_slider_;
  BatchSlider* accum_slider_;
  QLabel* effective_label_;
  QLabel* memory_label_;
  QString memory_tip_;  ///< what memory_label_'s figures count, for its tooltip
  QLineEdit* budget_edit_;
  QLabel* budget_label_;  ///< the last fit's choice and why, or why it failed
  MemoryEstimator* memory_estimator_;
  QTimer* memory_probe_timer_;  ///< single shot: settles a burst of edits into one request
  bool running_ = false;
  /// A check box for each arm of the comparison (no-accum, accum, big-batch), in the order
  /// a config lists them.
  std::vector<std::pair<ArmKind, QCheckBox*>> arm_checks_;
  PitfallPicker* pitfalls_;   ///< the pitfall arms ("Common mistakes")
  OptimizerForm* optimizer_;  ///< the optimizer, its LR rule, schedule and clip norm
  QComboBox* policy_combo_;
  QComboBox* dtype_combo_;
  QComboBox* budget_kind_combo_;
  QDoubleSpinBox* epochs_spin_;
  QSpinBox* samples_spin_;
  QSpinBox* eval_spin_;
  QSpinBox* seed_spin_;
  QComboBox* device_combo_;
  QSpinBox* workers_spin_ = nullptr;   ///< data-parallel processes (ExperimentConfig::workers)
  QCheckBox* arms_at_once_ = nullptr;  ///< ExperimentConfig::arm_threads: 1 unticked
  QCheckBox* keep_weights_ = nullptr;  ///< ExperimentConfig::keep_weights
  QWidget* run_buttons_ = nullptr;
  QList<QWidget*> locked_while_running_;
  QList<QWidget*> groups_;  ///< the form's group boxes (locked while a lesson trains)
  QLabel* lesson_note_;     ///< says that a lesson's run is not this form's
};

}  // namespace accumlab::ui
