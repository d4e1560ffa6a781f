// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson results of a run store: one row per attempt at a lesson, with its verdict and runs.
#include "accumlab/lesson_store.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <nlohmann/json.hpp>

#include "accumlab/input_error.h"
#include "store/columns.h"
#include "store/connection.h"
#include "store/store_clock.h"

namespace accumlab {

namespace {

constexpr char kLessonRowSql[] =
    "SELECT id, lesson_id, title, finished_at, prediction, prediction_correct, all_hold, "
    "verdict_json, run_ids_json FROM lesson_results ";

LessonResultRow readLessonRow(SQLite::Statement& q) {
  LessonResultRow r;
  std::string run_ids;
  store::readColumns(q, 0, r.id, r.lesson_id, r.title, r.finished_at, r.prediction,
                     r.prediction_correct, r.all_hold, r.verdict_json, run_ids);
  const nlohmann::json ids = nlohmann::json::parse(run_ids, nullptr, false);
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
    store::bindColumns(q, 1, row.lesson_id, row.title,
                       row.finished_at.empty() ? store::isoUtcNow() : row.finished_at,
                       row.prediction, row.prediction_correct, row.all_hold, row.verdict_json,
                       nlohmann::json(row.run_ids).dump());
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
