// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson results of a run store: one row per attempt at a lesson, with its verdict and runs.
#include "accumlab/lesson_store.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <nlohmann/json.hpp>

#include "accumlab/input_error.h"
#include "store/connection.h"
#include "store/store_clock.h"

namespace accumlab {

namespace {

constexpr char kLessonRowSql[] =
    "SELECT id, lesson_id, title, finished_at, prediction, prediction_correct, all_hold, "
    "verdict_json, run_ids_json FROM lesson_results ";

LessonResultRow readLessonRow(SQLite::Statement& q) {
  LessonResultRow r;
  r.id = q.getColumn(0).getInt64();
  r.lesson_id = q.getColumn(1).getString();
  r.title = q.getColumn(2).getString();
  r.finished_at = q.getColumn(3).getString();
  r.prediction = q.getColumn(4).getString();
  if (!q.getColumn(5).isNull()) r.prediction_correct = q.getColumn(5).getInt() != 0;
  r.all_hold = q.getColumn(6).getInt() != 0;
  r.verdict_json = q.getColumn(7).getString();
  const nlohmann::json ids = nlohmann::json::parse(q.getColumn(8).getString(), nullptr, false);
  if (ids.is_array()) {
    for (const auto& id : ids) {
      if (id.is_number_integer()) r.run_ids.push_back(id.get<int64_t>());
    }
  }
  return r;
}

}  // namespace

LessonStore::LessonStore(RunStore& store) : conn_(store.connection()) {}

int64_t LessonStore::add(const LessonResultRow& row) {
  return conn_.guarded("storing a lesson result", [&] {
    SQLite::Statement q(conn_.db(),
                        "INSERT INTO lesson_results (lesson_id, title, finished_at, prediction, "
                        "prediction_correct, all_hold, verdict_json, run_ids_json) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    q.bind(1, row.lesson_id);
    q.bind(2, row.title);
    q.bind(3, row.finished_at.empty() ? store::isoUtcNow() : row.finished_at);
    q.bind(4, row.prediction);
    if (row.prediction_correct) {
      q.bind(5, *row.prediction_correct ? 1 : 0);
    } else {
      q.bind(5);
    }
    q.bind(6, row.all_hold ? 1 : 0);
    q.bind(7, row.verdict_json);
    q.bind(8, nlohmann::json(row.run_ids).dump());
    q.exec();
    return static_cast<int64_t>(conn_.db().getLastInsertRowid());
  });
}

std::vector<LessonResultRow> LessonStore::list(const std::string& lesson_id) {
  return conn_.guarded("listing lesson results", [&] {
    SQLite::Statement q(conn_.db(), std::string(kLessonRowSql) +
                                        (lesson_id.empty() ? "" : "WHERE lesson_id = ? ") +
                                        "ORDER BY id DESC");
    if (!lesson_id.empty()) q.bind(1, lesson_id);
    std::vector<LessonResultRow> rows;
    while (q.executeStep()) rows.push_back(readLessonRow(q));
    return rows;
  });
}

LessonResultRow LessonStore::get(int64_t id) {
  return conn_.guarded("reading lesson result " + std::to_string(id), [&] {
    SQLite::Statement q(conn_.db(), std::string(kLessonRowSql) + "WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep()) {
      throw InputError("there is no lesson result " + std::to_string(id) + " in " + conn_.path() +
                       "; `accumlab-cli lesson results` shows the ids");
    }
    return readLessonRow(q);
  });
}

}  // namespace accumlab
