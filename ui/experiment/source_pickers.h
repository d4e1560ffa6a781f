// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGroupBox>
#include <QHash>
#include <QString>

#include "accumlab/experiment_config.h"

class QComboBox;
class QLineEdit;

namespace accumlab::ui {
class TextOptions;
}

namespace accumlab::ui {

/// The experiment panel's "Data and model" group: the dataset and model pickers, whose last
/// entries open a file or folder, the CSV label column and task (editable for a CSV dataset
/// only) and the text options (shown for text data only). GUI thread.
class SourcePickers : public QGroupBox {
  Q_OBJECT

 public:
  explicit SourcePickers(QWidget* parent = nullptr);

  /// Writes the data, CSV label, task, text options and model shown into `config`.
  void writeTo(ExperimentConfig* config) const;
  /// Shows `config`'s data, CSV label, task and model (unknown specs are added to the
  /// pickers); emits nothing.
  void setConfig(const ExperimentConfig& config);
  /// Selects the dataset or TorchScript model at `path`; false with a message otherwise.
  bool openPath(const QString& path, QString* error);
  /// The run database in use: opening it as a dataset or model is refused before it is read
  /// (reading it would drop the app's locks on it).
  void setStorePath(const QString& path) { store_path_ = path; }
  /// While running nothing here is editable.
  void setRunning(bool running);
  /// Whether the pickers take edits: not while a run trains or a lesson holds the form.
  bool editable() const;
  /// The dataset picker's tooltip: for text data, its lengths' histogram under the text
  /// options shown, read when first asked for (the fortunes take a moment to read) and kept
  /// for those data and options.
  QString dataToolTip();
  /// The same for the picker's entry `row` (the tooltip of that entry in the open list).
  QString dataToolTip(int row);
  /// The spec of the file or folder the user opened last, until it is known to load (a
  /// probe of the experiment reads it at once); empty when none waits.
  QString uncheckedSpec() const { return unchecked_spec_; }
  /// The opened file loads: it stays.
  void acceptUnchecked();
  /// The opened file does not load: its entry leaves the picker, which shows what it showed
  /// before, and edited() is emitted.
  void rejectUnchecked();

 signals:
  /// The user picked another dataset, model or CSV task.
  void edited();
  /// A file or folder was opened (for the recent-files list).
  void pathOpened(const QString& path);
  /// Opening failed; the message names the path and what was expected.
  void openFailed(const QString& message);

 private:
  void onPickerActivated(QComboBox* combo);
  void selectSpec(QComboBox* combo, const QString& spec, const QString& label);
  void updateCsvFields();
  /// Shows the text options for text data, hides them otherwise.
  void updateTextFields();
  /// After the user picked data: a built-in model for the other kind of data gives way to
  /// the first built-in that trains on it (Fortunes takes the character LM).
  void matchModelToData();
  bool eventFilter(QObject* watched, QEvent* event) override;

  QComboBox* data_combo_;
  QLineEdit* label_edit_;
  QComboBox* task_combo_;
  QComboBox* model_combo_;
  TextOptions* text_;
  QWidget* text_label_;
  QHash<QString, QString> lengths_html_;  ///< by data, split and max_len: their histogram
  QString store_path_;
  QString unchecked_spec_;                ///< uncheckedSpec()
  QComboBox* unchecked_combo_ = nullptr;  ///< the picker it was put in
  QString unchecked_before_;              ///< the spec that picker showed before
};

}  // namespace accumlab::ui
