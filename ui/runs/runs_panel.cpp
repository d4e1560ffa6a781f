// SPDX-License-Identifier: GPL-3.0-or-later
#include "runs/runs_panel.h"

#include <QAction>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <exception>

#include "accumlab/run_store.h"
#include "runs/runs_model.h"
#include "series/store_watch.h"

namespace accumlab::ui {

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
  // Another program's writes (accumlab-cli run or merge, a sweep beside the app) show
  // without Refresh.
  watch_ = new StoreWatch([this] { return store_ != nullptr && isVisible(); }, this);
  connect(watch_, &StoreWatch::changed, this, &RunsPanel::refresh);
  model_ = new RunsModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(Qt::UserRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  view_ = new QTableView(this);
  view_->setObjectName("runsTable");
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(RunsModel::kId, Qt::DescendingOrder);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->verticalHeader()->hide();
  view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setStretchLastSection(true);
  view_->setAlternatingRowColors(true);
  view_->setContextMenuPolicy(Qt::ActionsContextMenu);

  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter runs (any column: dataset, tag, status, …)"));
  filter_->setClearButtonEnabled(true);
  auto* refresh = new QPushButton(tr("Refresh"), this);
  auto* top = new QHBoxLayout;
  top->addWidget(filter_, 1);
  top->addWidget(refresh);

  auto* open = new QPushButton(tr("Open"), this);
  open->setToolTip(tr("Show the plots of the selected run's experiment (all its arms)"));
  auto* compare = new QPushButton(tr("Compare"), this);
  compare->setToolTip(tr("Overlay the selected runs on the plots, one line style per experiment"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(compare);
  buttons->addStretch(1);

  note_ = new QLabel(this);
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(view_, 1);
  layout->addWidget(note_);
  layout->addLayout(buttons);

  auto addAction = [this](const QString& text, auto slot) {
    auto* a = new QAction(text, view_);
    connect(a, &QAction::triggered, this, slot);
    view_->addAction(a);
  };
  addAction(tr("Open"), [this] { emit openRequested(selectedRunIds()); });
  addAction(tr("Compare"), [this] { emit compareRequested(selectedRunIds()); });
  addAction(tr("Rename…"), &RunsPanel::promptRename);
  addAction(tr("Tags…"), &RunsPanel::promptTags);
  addAction(tr("Note…"), &RunsPanel::promptNote);
  addAction(tr("Export CSV / JSON…"), [this] { emit exportRequested(selectedRunIds()); });
  addAction(tr("Resume"), [this] {
    const auto ids = selectedRunIds();
    if (ids.size() == 1) emit resumeRequested(ids.front());
  });
  resume_ = view_->actions().back();
  addAction(tr("Delete…"), &RunsPanel::promptDelete);

  connect(filter_, &QLineEdit::textChanged, this, &RunsPanel::setFilterText);
  connect(refresh, &QPushButton::clicked, this, &RunsPanel::refresh);
  connect(open, &QPushButton::clicked, this, [this] { emit openRequested(selectedRunIds()); });
  connect(compare, &QPushButton::clicked, this,
          [this] { emit compareRequested(selectedRunIds()); });
  connect(view_, &QTableView::doubleClicked, this,
          [this] { emit openRequested(selectedRunIds()); });
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &RunsPanel::showCurrentNote);
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunsPanel::updateResume);
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &RunsPanel::updateResume);
  updateResume();
}

void RunsPanel::setStore(RunStore* store) {
  store_ = store;
  watch_->follow(store ? store->path() : std::string());
  refresh();
}

void RunsPanel::refresh() {
  const std::vector<int64_t> selected = selectedRunIds();
  std::vector<RunRow> rows;
  if (store_) {
    try {
      rows = store_->listRuns();
    } catch (const std::exception& e) {
      emit errorOccurred(QString::fromStdString(e.what()));
    }
  }
  model_->setRuns(std::move(rows));
  selectRuns(selected);
  updateResume();
}

void RunsPanel::updateResume() {
  QModelIndexList rows = view_->selectionModel()->selectedRows();
  if (rows.isEmpty() && view_->currentIndex().isValid()) rows << view_->currentIndex();
  const bool interrupted = rows.size() == 1 && rows.front().data(RunsModel::kStatusRole).toInt() ==
                                                   static_cast<int>(ArmStatus::kInterrupted);
  resume_->setEnabled(interrupted);
  // A stopped or finished run ended cleanly and kept no state to go on from; an interrupted
  // one (its process died) continues from its last checkpoint.
  resume_->setToolTip(interrupted ? tr("Continue this experiment from its last checkpoint")
                                  : tr("Only an interrupted run (its process died) can be "
                                       "resumed, from its last checkpoint"));
}

std::vector<int64_t> RunsPanel::selectedRunIds() const {
  std::vector<int64_t> ids;
  const QModelIndexList rows = view_->selectionModel()->selectedRows();
  for (const QModelIndex& index : rows) {
    ids.push_back(index.data(RunsModel::kRunIdRole).toLongLong());
  }
  if (ids.empty() && view_->currentIndex().isValid()) ids.push_back(currentRunId());
  return ids;
}

void RunsPanel::selectRuns(const std::vector<int64_t>& ids) {
  view_->clearSelection();
  for (int row = 0; row < proxy_->rowCount(); ++row) {
    const QModelIndex index = proxy_->index(row, 0);
    const int64_t id = index.data(RunsModel::kRunIdRole).toLongLong();
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
      view_->selectionModel()->select(index,
                                      QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
  }
}

int RunsPanel::visibleRunCount() const { return proxy_->rowCount(); }

void RunsPanel::setFilterText(const QString& text) {
  if (filter_->text() != text) filter_->setText(text);
  proxy_->setFilterFixedString(text);
}

int64_t RunsPanel::currentRunId() const {
  const QModelIndex index = view_->currentIndex();
  return index.isValid() ? index.data(RunsModel::kRunIdRole).toLongLong() : 0;
}

void RunsPanel::showCurrentNote() {
  const int64_t id = currentRunId();
  if (!store_ || id == 0) {
    note_->clear();
    return;
  }
  try {
    const RunDetail d = store_->run(id);
    QString text = tr("<b>Run %1</b> · %2 · %3")
                       .arg(id)
                       .arg(QString::fromStdString(d.dataset_description).toHtmlEscaped(),
                            QString::fromStdString(d.device).toHtmlEscaped());
    if (!d.summary.message.empty())
      text += "<br>" + QString::fromStdString(d.summary.message).toHtmlEscaped();
    if (!d.note.empty())
      text += "<br><i>" + QString::fromStdString(d.note).toHtmlEscaped() + "</i>";
    note_->setText(text);
  } catch (const std::exception& e) {
    note_->setText(QString::fromStdString(e.what()).toHtmlEscaped());
  }
}

bool RunsPanel::reportingErrors(const std::function<void()>& body) {
  // A store call that throws inside a slot would unwind into Qt's event loop, which ends the
  // app: every failure becomes the dialog errorOccurred() leads to instead.
  try {
    body();
    return true;
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
    return false;
  }
}

bool RunsPanel::renameRun(int64_t id, const QString& name) {
  if (!reportingErrors([&] { store_->rename(id, name.trimmed().toStdString()); })) return false;
  refresh();
  return true;
}

bool RunsPanel::setTags(int64_t id, const QStringList& tags) {
  const bool ok = reportingErrors([&] {
    const RunDetail d = store_->run(id);
    std::vector<std::string> wanted, removed;
    for (const QString& t : tags) {
      if (!t.trimmed().isEmpty()) wanted.push_back(t.trimmed().toStdString());
    }
    for (const std::string& t : d.row.tags) {
      if (std::find(wanted.begin(), wanted.end(), t) == wanted.end()) removed.push_back(t);
    }
    if (!removed.empty()) store_->removeTags(id, removed);
    if (!wanted.empty()) store_->addTags(id, wanted);
  });
  if (!ok) return false;
  refresh();
  return true;
}

bool RunsPanel::setNote(int64_t id, const QString& note) {
  if (!reportingErrors([&] { store_->setNote(id, note.toStdString()); })) return false;
  refresh();
  showCurrentNote();
  return true;
}

bool RunsPanel::deleteRuns(const std::vector<int64_t>& ids) {
  if (!reportingErrors([&] { store_->deleteRuns(ids); })) return false;
  refresh();
  return true;
}

void RunsPanel::promptRename() {
  const int64_t id = currentRunId();
  if (!store_ || id == 0) return;
  QString current;
  if (!reportingErrors([&] { current = QString::fromStdString(store_->run(id).row.name); })) {
    return;
  }
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("Rename run"), tr("Name of run %1:").arg(id),
                                             QLineEdit::Normal, current, &ok);
  if (ok) renameRun(id, name);
}

void RunsPanel::promptTags() {
  const int64_t id = currentRunId();
  if (!store_ || id == 0) return;
  QStringList current;
  const bool read = reportingErrors([&] {
    for (const std::string& t : store_->run(id).row.tags) current << QString::fromStdString(t);
  });
  if (!read) return;
  bool ok = false;
  const QString text =
      QInputDialog::getText(this, tr("Tags"), tr("Tags of run %1, separated by commas:").arg(id),
                            QLineEdit::Normal, current.join(", "), &ok);
  if (ok) setTags(id, text.split(',', Qt::SkipEmptyParts));
}

void RunsPanel::promptNote() {
  const int64_t id = currentRunId();
  if (!store_ || id == 0) return;
  QString note;
  if (!reportingErrors([&] { note = QString::fromStdString(store_->run(id).note); })) return;
  bool ok = false;
  const QString text =
      QInputDialog::getMultiLineText(this, tr("Note"), tr("Note on run %1:").arg(id), note, &ok);
  if (ok) setNote(id, text);
}

void RunsPanel::promptDelete() {
  const std::vector<int64_t> ids = selectedRunIds();
  if (!store_ || ids.empty()) return;
  const auto answer =
      QMessageBox::question(this, tr("Delete runs"),
                            tr("Delete %n run(s) with all their metrics? This cannot be undone.",
                               nullptr, static_cast<int>(ids.size())));
  if (answer == QMessageBox::Yes) deleteRuns(ids);
}

}  // namespace accumlab::ui
