// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>
#include <cstdint>
#include <functional>
#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace accumlab {
class RunStore;
}

namespace accumlab::ui {

class RunsModel;
class StoreWatch;

/// The stored runs: a sortable, filterable table; open one run's experiment, overlay several
/// (compare), rename, tag, note and delete. Reads and writes through the GUI thread's own
/// RunStore connection (not owned). GUI thread.
class RunsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RunsPanel(QWidget* parent = nullptr);

  /// Uses `store` (nullptr: no database) and lists its runs.
  void setStore(RunStore* store);
  /// Re-reads the runs from the store, keeping the selection.
  void refresh();
  /// Ids of the selected runs, in table order.
  std::vector<int64_t> selectedRunIds() const;
  /// Selects the runs with these ids.
  void selectRuns(const std::vector<int64_t>& ids);
  /// The number of runs listed after filtering.
  int visibleRunCount() const;
  /// Filters the rows by text in any column.
  void setFilterText(const QString& text);

  /// Store edits; each refreshes the table and reports failures through errorOccurred().
  bool renameRun(int64_t id, const QString& name);
  bool setTags(int64_t id, const QStringList& tags);
  bool setNote(int64_t id, const QString& note);
  bool deleteRuns(const std::vector<int64_t>& ids);

 signals:
  /// Show the experiments of these runs (double click, Open).
  void openRequested(const std::vector<int64_t>& run_ids);
  /// Overlay these runs (Compare).
  void compareRequested(const std::vector<int64_t>& run_ids);
  /// Export these runs (the main window asks for the file).
  void exportRequested(const std::vector<int64_t>& run_ids);
  /// Resume… on an interrupted run: continue its experiment from its checkpoint.
  void resumeRequested(int64_t run_id);
  void errorOccurred(const QString& message);

 private:
  void promptRename();
  void promptTags();
  void promptNote();
  void promptDelete();
  void showCurrentNote();
  /// Offers Resume only where it works: one selected run, interrupted (its process died).
  void updateResume();
  int64_t currentRunId() const;
  /// Runs `body`; a store failure goes to errorOccurred() (a dialog) and returns false.
  bool reportingErrors(const std::function<void()>& body);

  RunStore* store_ = nullptr;
  StoreWatch* watch_;  ///< lists the runs again when another program wrote to the store
  RunsModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QLineEdit* filter_;
  QLabel* note_;
  QAction* resume_ = nullptr;
};

}  // namespace accumlab::ui
