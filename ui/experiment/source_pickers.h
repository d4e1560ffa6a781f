#pragma once

#include <QGroupBox>
#include <QString>

#include "accumlab/experiment_config.h"

class QComboBox;
class QLineEdit;

namespace accumlab::ui {

/// The experiment panel's "Data and model" group: the dataset and model pickers, whose last
/// entries open a file or folder, and the CSV label column and task (editable for a CSV
/// dataset only). GUI thread.
class SourcePickers : public QGroupBox {
  Q_OBJECT

 public:
  explicit SourcePickers(QWidget* parent = nullptr);

  /// Writes the data, CSV label, task and model shown into `config`.
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

  QComboBox* data_combo_;
  QLineEdit* label_edit_;
  QComboBox* task_combo_;
  QComboBox* model_combo_;
  QString store_path_;
};

}  // namespace accumlab::ui
