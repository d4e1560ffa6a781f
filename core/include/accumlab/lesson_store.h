// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/run_store.h"

namespace accumlab {

/// One attempt at a lesson (docs/lessons.md): what was predicted and the verdict of its checks.
struct LessonResultRow {
  int64_t id = 0;
  std::string lesson_id;
  std::string title;
  std::string finished_at;  ///< ISO 8601 UTC
  std::string prediction;   ///< as given; empty when none was
  std::optional<bool> prediction_correct;
  bool all_hold = false;
  std::string verdict_json;      ///< verdictToJson() of the attempt
  std::vector<int64_t> run_ids;  ///< the stored runs it trained, in order
};

/// The lesson results of a run store (docs/store.md, table `lesson_results`), read and
/// written on the RunStore's connection: the same thread rule, the same InputErrors.
class LessonStore {
 public:
  explicit LessonStore(RunStore& store);

  /// Stores a lesson attempt; returns its id.
  int64_t add(const LessonResultRow& row);
  /// Lesson attempts, newest first; only those of `lesson_id` when it is not empty.
  std::vector<LessonResultRow> list(const std::string& lesson_id = "");
  /// One attempt; throws InputError when there is no such attempt.
  LessonResultRow get(int64_t id);

 private:
  store::Connection& conn_;
};

}  // namespace accumlab
