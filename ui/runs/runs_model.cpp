// SPDX-License-Identifier: GPL-3.0-or-later
#include "runs/runs_model.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <cmath>

#include "plots/arm_style.h"

namespace accumlab::ui {

namespace {
QVariant numberCell(double v, int precision) {
  return std::isfinite(v) ? QVariant(QString::number(v, 'g', precision)) : QVariant("–");
}

QColor statusColor(ArmStatus s) {
  switch (s) {
    case ArmStatus::kFinished:
      return QColor(0x2E7D32);
    case ArmStatus::kRunning:
      return QColor(0x1565C0);
    case ArmStatus::kDiverged:
    case ArmStatus::kFailed:
      return QColor(0xC62828);
    case ArmStatus::kStopped:
    case ArmStatus::kInterrupted:
      return QColor(0x8D6E00);
  }
  return QColor(Qt::black);
}
}  // namespace

void RunsModel::setRuns(std::vector<RunRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int RunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kTitles[kColumnCount] = {"ID",      "Arm",     "m × K",    "Status",  "Loss",
                                              "Val acc", "Name",    "Started",  "Dataset", "Model",
                                              "Steps",   "Samples", "Val loss", "Tags"};
  return tr(kTitles[section]);
}

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const RunRow& r = rows_[static_cast<size_t>(index.row())];
  if (role == kRunIdRole) return static_cast<qlonglong>(r.id);
  if (role == kStatusRole) return static_cast<int>(r.status);
  if (role == Qt::UserRole) {  // sort keys
    switch (index.column()) {
      case kId:
        return static_cast<qlonglong>(r.id);
      case kBatch:
        return static_cast<qlonglong>(r.micro_batch * r.accum);
      case kSteps:
        return static_cast<qlonglong>(r.steps);
      case kSamples:
        return static_cast<qlonglong>(r.samples_seen);
      case kLoss:
        return std::isfinite(r.final_loss) ? r.final_loss : 1e300;
      case kValLoss:
        return std::isfinite(r.val_loss) ? r.val_loss : 1e300;
      case kValAccuracy:
        return std::isfinite(r.val_accuracy) ? r.val_accuracy : -1.0;
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ForegroundRole) {
    if (index.column() == kArm) return QBrush(armColor(r.arm));
    if (index.column() == kStatus) return QBrush(statusColor(r.status));
    return {};
  }
  const bool numeric = index.column() == kSteps || index.column() == kSamples ||
                       index.column() == kLoss || index.column() == kValLoss ||
                       index.column() == kValAccuracy;
  if (role == Qt::TextAlignmentRole && numeric) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole && index.column() == kName) {
    return QString::fromStdString(r.experiment_name);
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kId:
      return static_cast<qlonglong>(r.id);
    case kName:
      return QString::fromStdString(!r.name.empty() ? r.name : r.experiment_name);
    case kStarted: {
      const QDateTime t = QDateTime::fromString(QString::fromStdString(r.started_at), Qt::ISODate);
      return t.isValid() ? t.toLocalTime().toString("yyyy-MM-dd HH:mm")
                         : QString::fromStdString(r.started_at);
    }
    case kDataset:
      return QString::fromStdString(r.dataset);
    case kModel:
      return QString::fromStdString(r.model);
    case kArm:
      return armName(r.arm);
    case kBatch:
      return QString::fromStdString(batchSizesText(r));
    case kStatus:
      return QString::fromStdString(toString(r.status));
    case kSteps:
      return static_cast<qlonglong>(r.steps);
    case kSamples:
      return static_cast<qlonglong>(r.samples_seen);
    case kLoss:
      return numberCell(r.final_loss, 4);
    case kValLoss:
      return numberCell(r.val_loss, 4);
    case kValAccuracy:
      return std::isfinite(r.val_accuracy)
                 ? QVariant(QString::number(100 * r.val_accuracy, 'f', 2) + "%")
                 : QVariant("–");
    case kTags: {
      QStringList tags;
      for (const std::string& t : r.tags) tags << QString::fromStdString(t);
      return tags.join(", ");
    }
    default:
      return {};
  }
}

}  // namespace accumlab::ui
