// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/lesson.h"

namespace accumlab {

class RunStore;

/// One attempt at a lesson, from its first run to its stored verdict: the steps that the CLI
/// (`accumlab-cli lesson run`, which trains each job itself) and the app's Lessons tab (which
/// trains them through its controller) share. The front end trains jobs()[next()] and hands
/// its records over with jobFinished(), until done(); then finish() gives the verdict. With a
/// store, a sweep lesson's points are stored as a sweep as they end, and the attempt with its
/// verdict and run ids as a lesson result. Not thread-safe: one thread drives it.
class LessonSession {
 public:
  /// Checks the prediction (an answer that is not a number or not a choice is refused here,
  /// before anything trains), makes the jobs and, with `store` (nullptr: nothing is kept),
  /// refuses a job whose data or model is the store itself and creates a sweep lesson's sweep.
  /// Throws InputError with the sentence to show.
  LessonSession(Lesson lesson, std::string prediction, RunStore* store);

  const Lesson& lesson() const { return lesson_; }
  const std::vector<LessonJob>& jobs() const { return jobs_; }
  /// The index of the job to train next; jobs().size() once every job has ended.
  size_t next() const { return results_.size(); }
  bool done() const { return next() == jobs_.size(); }

  /// Job next() ended with `result` (its stored_run_ids filled in by the front end from its
  /// store sink); `stopped` when the user stopped it. Updates its sweep point.
  void jobFinished(LessonRunResult result, bool stopped);

  /// The verdict of every job's run and, with a store, the stored attempt. Call once, when
  /// done(). Throws InputError when the store cannot be written.
  const LessonVerdict& finish();
  /// finish()'s verdict; empty before it, or when the store refused it.
  const std::optional<LessonVerdict>& verdict() const { return verdict_; }

  const std::vector<LessonRunResult>& results() const { return results_; }
  /// The stored runs of every job so far, in job and arm order.
  const std::vector<int64_t>& runIds() const { return run_ids_; }
  /// The sweep of a sweep lesson (0: none, or not stored).
  int64_t sweepId() const { return sweep_id_; }
  /// The stored attempt (0 before finish(), or not stored).
  int64_t resultId() const { return result_id_; }

 private:
  Lesson lesson_;
  std::string prediction_;
  RunStore* store_;
  std::vector<LessonJob> jobs_;
  std::vector<LessonRunResult> results_;
  std::vector<int64_t> run_ids_;
  int64_t sweep_id_ = 0;
  int64_t result_id_ = 0;
  std::optional<LessonVerdict> verdict_;
};

}  // namespace accumlab
