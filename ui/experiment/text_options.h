// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include "accumlab/experiment_config.h"

class QComboBox;
class QSpinBox;

namespace accumlab::ui {

/// The text data's options on one row of the "Data and model" group: a sequence per line or
/// paragraph, the bytes kept of each, and how token losses make a batch's loss
/// (docs/sequences.md). Shown for text data only. GUI thread.
class TextOptions : public QWidget {
  Q_OBJECT

 public:
  explicit TextOptions(QWidget* parent = nullptr);

  /// Writes the split, the length limit and the token loss shown into `config`.
  void writeTo(ExperimentConfig* config) const;
  /// Shows `config`'s text options; emits nothing.
  void setConfig(const ExperimentConfig& config);
  /// Whether the split applies: the fortunes are one quote each, however they are split.
  void setSplitApplies(bool applies);

 signals:
  /// The user changed an option.
  void edited();

 private:
  QComboBox* split_;
  QSpinBox* max_len_;
  QComboBox* token_loss_;
};

}  // namespace accumlab::ui
