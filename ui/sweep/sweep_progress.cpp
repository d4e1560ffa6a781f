// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep/sweep_progress.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <exception>
#include <optional>

namespace accumlab::ui {

namespace {

std::optional<SweepProgressEvent::Kind> kindOf(const QString& event) {
  using Kind = SweepProgressEvent::Kind;
  if (event == "sweep_started") return Kind::kSweepStarted;
  if (event == "point_started") return Kind::kPointStarted;
  if (event == "point_finished") return Kind::kPointFinished;
  if (event == "sweep_finished") return Kind::kSweepFinished;
  if (event == "error") return Kind::kError;
  return std::nullopt;
}

std::optional<SweepProgressEvent> parseLine(const QByteArray& line) {
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject()) return std::nullopt;
  const QJsonObject o = doc.object();
  const auto kind = kindOf(o.value("event").toString());
  if (!kind) return std::nullopt;
  SweepProgressEvent e;
  e.kind = *kind;
  e.sweep = o.value("sweep").toInteger();
  e.point = o.value("point").toInteger(-1);
  e.done = o.value("done").toInteger();
  e.total = o.value("total").toInteger();
  e.stopped = o.value("stopped").toBool();
  e.message = o.value("message").toString();
  if (e.kind == SweepProgressEvent::Kind::kPointFinished) {
    try {
      e.status = parseSweepStatus(o.value("status").toString().toStdString());
    } catch (const std::exception&) {
      return std::nullopt;  // a status this build does not know
    }
  }
  return e;
}

}  // namespace

std::vector<SweepProgressEvent> SweepProgress::feed(const QByteArray& bytes) {
  pending_ += bytes;
  std::vector<SweepProgressEvent> events;
  qsizetype end = 0;
  while ((end = pending_.indexOf('\n')) >= 0) {
    const QByteArray line = pending_.left(end).trimmed();
    pending_.remove(0, end + 1);
    if (auto e = parseLine(line)) events.push_back(std::move(*e));
  }
  return events;
}

}  // namespace accumlab::ui
