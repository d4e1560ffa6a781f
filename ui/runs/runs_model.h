// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "accumlab/run_store.h"

namespace accumlab::ui {

/// The stored runs as a table (one row per run, i.e. per arm). Qt::UserRole gives each cell's
/// sortable value, RunIdRole the run id. GUI thread.
class RunsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  /// What tells runs apart comes first, so a narrow dock still shows it.
  enum Column {
    kId,
    kArm,
    kBatch,
    kStatus,
    kLoss,
    kValAccuracy,
    kName,
    kStarted,
    kDataset,
    kModel,
    kSteps,
    kSamples,
    kValLoss,
    kTags,
    kColumnCount
  };
  static constexpr int kRunIdRole = Qt::UserRole + 1;
  /// The run's ArmStatus, as an int.
  static constexpr int kStatusRole = Qt::UserRole + 2;

  using QAbstractTableModel::QAbstractTableModel;

  /// Replaces the rows.
  void setRuns(std::vector<RunRow> rows);
  const RunRow& runAt(int row) const { return rows_[static_cast<size_t>(row)]; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<RunRow> rows_;
};

}  // namespace accumlab::ui
