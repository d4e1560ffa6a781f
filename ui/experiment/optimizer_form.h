// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGroupBox>

#include "accumlab/experiment_config.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace accumlab::ui {

/// The "Optimizer" group of the experiment editor: the optimizer and its own settings
/// (momentum and Nesterov for SGD, the betas for Adam and AdamW, weight decay), the learning
/// rate with its scaling for the K-times larger batch, its schedule and warm-up, and the
/// gradient clip norm; with the line that says which LR each arm trains with. Rows that do
/// not apply to the optimizer or schedule chosen are hidden. GUI thread.
class OptimizerForm : public QGroupBox {
  Q_OBJECT

 public:
  explicit OptimizerForm(QWidget* parent = nullptr);

  /// Writes the settings shown into `optimizer`; fields it does not show (eps) keep theirs.
  void writeTo(OptimizerConfig* optimizer) const;
  /// Shows `optimizer`; emits nothing.
  void setConfig(const OptimizerConfig& optimizer);
  /// The line under the form: each arm's learning rate when accum adds `micro_batches`
  /// micro-batches into an update.
  void showLearningRates(int64_t micro_batches);
  /// While a run trains, nothing here changes.
  void setRunning(bool running);

 signals:
  /// The user changed a setting.
  void edited();

 private:
  /// Shows the rows that apply to the optimizer and the schedule chosen.
  void updateRows();

  QFormLayout* form_;
  QComboBox* kind_;
  QDoubleSpinBox* lr_;
  QDoubleSpinBox* momentum_;
  QCheckBox* nesterov_;
  QWidget* sgd_row_;
  QDoubleSpinBox* beta1_;
  QDoubleSpinBox* beta2_;
  QWidget* betas_row_;
  QDoubleSpinBox* weight_decay_;
  QComboBox* scaling_;
  QComboBox* schedule_;
  QSpinBox* step_every_;
  QDoubleSpinBox* step_gamma_;
  QWidget* step_row_;
  QSpinBox* warmup_;
  QDoubleSpinBox* clip_norm_;
  QLabel* rule_;
  double eps_ = 1e-8;  ///< not shown: kept from the config
  bool running_ = false;
};

}  // namespace accumlab::ui
