// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/source_pickers.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QHelpEvent>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QToolTip>
#include <exception>
#include <vector>

#include "accumlab/run_store.h"
#include "accumlab/text_lengths.h"
#include "experiment/enum_combo.h"
#include "experiment/source_catalog.h"
#include "experiment/text_options.h"
#include "files/file_dialogs.h"

namespace accumlab::ui {

namespace {

/// userData of the picker entries that open a dialog instead of naming a spec.
constexpr char kOpenFile[] = "open:file";
constexpr char kOpenFolder[] = "open:folder";
constexpr char kOpenModel[] = "open:model";

/// Fills `combo` with the built-in `choices`, a separator below them.
void addChoices(QComboBox* combo, const std::vector<SourceChoice>& choices) {
  for (const SourceChoice& c : choices) {
    combo->addItem(c.label, c.spec);
    combo->setItemData(combo->count() - 1, c.tooltip, Qt::ToolTipRole);
  }
  combo->insertSeparator(combo->count());
}

}  // namespace

SourcePickers::SourcePickers(QWidget* parent) : QGroupBox(tr("Data and model"), parent) {
  auto* form = new QFormLayout(this);
  data_combo_ = new QComboBox(this);
  data_combo_->setObjectName("dataset");
  addChoices(data_combo_, builtinDatasets());
  data_combo_->addItem(tr("Open CSV or IDX file…"), kOpenFile);
  data_combo_->addItem(tr("Open IDX or CIFAR-10 folder…"), kOpenFolder);
  label_edit_ = new QLineEdit(this);
  label_edit_->setPlaceholderText(tr("last column"));
  label_edit_->setToolTip(
      tr("The CSV column holding the label: a name from the header or a "
         "0-based index"));
  task_combo_ = new QComboBox(this);
  addEnumItems(task_combo_, {Task::kAuto, Task::kClassification, Task::kRegression});
  model_combo_ = new QComboBox(this);
  model_combo_->setObjectName("model");
  addChoices(model_combo_, builtinModels());
  model_combo_->addItem(tr("Open TorchScript model…"), kOpenModel);
  form->addRow(tr("Dataset"), data_combo_);
  form->addRow(tr("CSV label"), label_edit_);
  form->addRow(tr("CSV task"), task_combo_);
  text_ = new TextOptions(this);
  form->addRow(tr("Text"), text_);
  text_label_ = form->labelForField(text_);
  form->addRow(tr("Model"), model_combo_);
  connect(text_, &TextOptions::edited, this, &SourcePickers::edited);
  data_combo_->installEventFilter(this);
  data_combo_->view()->viewport()->installEventFilter(this);
  for (QComboBox* combo : {data_combo_, model_combo_}) {
    connect(combo, qOverload<int>(&QComboBox::activated), this,
            [this, combo] { onPickerActivated(combo); });
  }
  connect(task_combo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          &SourcePickers::edited);
}

void SourcePickers::writeTo(ExperimentConfig* config) const {
  config->data = data_combo_->currentData().toString().toStdString();
  config->label = label_edit_->text().trimmed().toStdString();
  config->task = enumOf<Task>(task_combo_);
  config->model = model_combo_->currentData().toString().toStdString();
  text_->writeTo(config);
}

void SourcePickers::setConfig(const ExperimentConfig& c) {
  const QSignalBlocker block(this);
  selectSpec(data_combo_, QString::fromStdString(c.data), QString::fromStdString(c.data));
  label_edit_->setText(QString::fromStdString(c.label));
  selectEnum(task_combo_, c.task);
  selectSpec(model_combo_, QString::fromStdString(c.model), QString::fromStdString(c.model));
  text_->setConfig(c);
  updateCsvFields();
}

void SourcePickers::setRunning(bool running) {
  const QList<QWidget*> fields = {data_combo_, label_edit_, task_combo_, model_combo_, text_};
  for (QWidget* w : fields) w->setEnabled(!running);
  updateCsvFields();
}

bool SourcePickers::editable() const { return data_combo_->isEnabled(); }

void SourcePickers::selectSpec(QComboBox* combo, const QString& spec, const QString& label) {
  int index = combo->findData(spec);
  if (index < 0) {
    // A spec from a file, a config or the recent list: insert it above the separator.
    index = combo->findData(spec.startsWith("torchscript:") || combo == model_combo_
                                ? QString(kOpenModel)
                                : QString(kOpenFile)) -
            1;
    combo->insertItem(index, label, spec);
    combo->setItemData(index, spec, Qt::ToolTipRole);
  }
  combo->setCurrentIndex(index);
  combo->setProperty("last", index);
}

void SourcePickers::onPickerActivated(QComboBox* combo) {
  const QString data = combo->currentData().toString();
  if (!data.startsWith("open:")) {
    combo->setProperty("last", combo->currentIndex());
    if (combo == data_combo_) matchModelToData();
    updateCsvFields();
    emit edited();
    return;
  }
  combo->setCurrentIndex(combo->property("last").toInt());  // until the dialog picks one
  QString path;
  if (data == kOpenModel) {
    path = file_dialogs::openFile(this, tr("Open a TorchScript model"), QString(),
                                  tr("TorchScript models (*.pt *.pth);;All files (*)"));
  } else if (data == kOpenFolder) {
    path = file_dialogs::folder(this, tr("Open an IDX or CIFAR-10 folder"));
  } else {
    path = file_dialogs::openFile(this, tr("Open a dataset file"), QString(),
                                  tr("CSV and text files (*.csv *.tsv *.txt);;IDX files (*-ubyte "
                                     "*-ubyte.gz);;All files (*)"));
  }
  if (path.isEmpty()) return;
  QString error;
  if (!openPath(path, &error)) emit openFailed(error);
}

bool SourcePickers::openPath(const QString& path, QString* error) {
  if (!store_path_.isEmpty() &&
      RunStore::wouldOverwrite(store_path_.toStdString(), path.toStdString())) {
    *error = tr("%1 is the run database; choose a dataset or model file.").arg(path);
    return false;
  }
  OpenedSource source;
  if (!openSource(path, &source, error)) return false;
  QComboBox* combo = source.is_model ? model_combo_ : data_combo_;
  unchecked_before_ = combo->currentData().toString();
  unchecked_combo_ = combo;
  unchecked_spec_ = source.spec;
  selectSpec(combo, source.spec, source.label);
  if (!source.is_model) matchModelToData();
  updateCsvFields();
  emit pathOpened(path);
  emit edited();
  return true;
}

void SourcePickers::updateCsvFields() {
  const bool csv = data_combo_->currentData().toString().startsWith("csv:");
  const bool editable = data_combo_->isEnabled();
  label_edit_->setEnabled(csv && editable);
  task_combo_->setEnabled(csv && editable);
  updateTextFields();
}

bool SourcePickers::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QGroupBox::eventFilter(watched, event);
  const auto* help = static_cast<QHelpEvent*>(event);
  // The picker itself says its chosen data; an entry of the open list says its own.
  int row = data_combo_->currentIndex();
  QWidget* over = data_combo_;
  if (QAbstractItemView* list = data_combo_->view(); watched == list->viewport()) {
    row = list->indexAt(help->pos()).row();
    over = list->viewport();
  } else if (watched != data_combo_) {
    return QGroupBox::eventFilter(watched, event);
  }
  if (row < 0 || !isTextData(data_combo_->itemData(row).toString().toStdString())) {
    return false;  // the entry's own tooltip
  }
  QToolTip::showText(help->globalPos(), dataToolTip(row), over);
  return true;
}

QString SourcePickers::dataToolTip() { return dataToolTip(data_combo_->currentIndex()); }

QString SourcePickers::dataToolTip(int row) {
  const QString about = data_combo_->itemData(row, Qt::ToolTipRole).toString();
  ExperimentConfig c;
  writeTo(&c);  // the text options shown
  c.data = data_combo_->itemData(row).toString().toStdString();
  if (!isTextData(c.data)) return about;
  const QString key = QString("%1|%2|%3")
                          .arg(QString::fromStdString(c.data))
                          .arg(c.max_len)
                          .arg(static_cast<int>(c.text_split));
  auto known = lengths_html_.find(key);
  if (known == lengths_html_.end()) {
    QString html;
    try {
      html = "<pre>" + QString::fromStdString(textLengthHistogram(textLengths(c))).toHtmlEscaped() +
             "</pre>";
    } catch (const std::exception& e) {  // as loading would say it: the file, line and byte
      html = "<p>" + QString::fromUtf8(e.what()).toHtmlEscaped() + "</p>";
    }
    known = lengths_html_.insert(key, html);
  }
  return "<p>" + about.toHtmlEscaped() + "</p><p>" + tr("Sequence lengths in bytes:") + "</p>" +
         *known;
}

void SourcePickers::acceptUnchecked() { unchecked_spec_.clear(); }

void SourcePickers::rejectUnchecked() {
  if (unchecked_spec_.isEmpty() || !unchecked_combo_) return;
  QComboBox* combo = unchecked_combo_;
  const int broken = combo->findData(unchecked_spec_);
  if (broken >= 0) combo->removeItem(broken);
  const int before = combo->findData(unchecked_before_);
  combo->setCurrentIndex(std::max(0, before));
  combo->setProperty("last", combo->currentIndex());
  unchecked_spec_.clear();
  updateCsvFields();
  emit edited();
}

void SourcePickers::matchModelToData() {
  // A built-in model for the other kind of data cannot run (text needs a sequence model,
  // tables and images a classifier): the picker takes the first built-in that can. A user's
  // TorchScript model stays; the run checks it.
  const bool text = isTextData(data_combo_->currentData().toString().toStdString());
  const QString model = model_combo_->currentData().toString();
  if (model.startsWith("torchscript:") || model.startsWith("open:")) return;
  if (model.startsWith("charlm") == text) return;
  for (int i = 0; i < model_combo_->count(); ++i) {
    const QString spec = model_combo_->itemData(i).toString();
    if (!spec.startsWith("torchscript:") && !spec.startsWith("open:") &&
        spec.startsWith("charlm") == text) {
      model_combo_->setCurrentIndex(i);
      model_combo_->setProperty("last", i);
      return;
    }
  }
}

void SourcePickers::updateTextFields() {
  const std::string data = data_combo_->currentData().toString().toStdString();
  const bool text = isTextData(data);
  text_->setVisible(text);
  text_->setSplitApplies(data != "fortunes");
  if (text_label_) text_label_->setVisible(text);
}

}  // namespace accumlab::ui
