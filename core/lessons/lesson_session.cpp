// SPDX-License-Identifier: GPL-3.0-or-later
// One attempt at a lesson: its jobs (a run each, or a point each of a sweep lesson), their
// outcomes as they end, and the stored attempt with its verdict (lesson_verdict.cpp judges).
#include "accumlab/lesson_session.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "accumlab/lesson_store.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_grid.h"
#include "accumlab/sweep_runner.h"
#include "accumlab/sweep_store.h"

namespace accumlab {

std::vector<LessonJob> lessonJobs(const Lesson& lesson) {
  std::vector<LessonJob> jobs;
  // Each job's experiment is named after the lesson and the run, so `list` tells them apart.
  const auto named = [](ExperimentConfig c, const std::string& label) {
    c.name = (c.name.empty() ? std::string("lesson") : c.name) + " · " + label;
    return c;
  };
  if (!lesson.sweep) {
    for (const LessonRun& run : lesson.runs) {
      jobs.push_back({run.id,
                      run.label,
                      lesson.runs.size() > 1 ? named(run.config, run.label) : run.config,
                      {},
                      {}});
    }
    return jobs;
  }
  const LessonSweep& s = *lesson.sweep;
  const ExperimentConfig& base = lesson.runs.front().config;
  SweepGrid grid;
  grid.effective_batches = s.effective_batches;
  grid.micro_batches = {s.micro_batch};
  grid.lrs = s.lrs;
  for (const SweepPoint& p : buildSweepGrid(base, grid, 1)) {
    LessonJob job;
    job.id = "point-" + std::to_string(p.index);
    char label[96];
    std::snprintf(label, sizeof label, "B=%lld (%lld x %lld), lr %g",
                  static_cast<long long>(p.effectiveBatch()), static_cast<long long>(p.micro_batch),
                  static_cast<long long>(p.accum), p.lr);
    job.label = label;
    job.config = named(sweepPointConfig(base, p), label);
    job.config.arms = {ArmKind::kAccum};
    job.target = s.target;
    job.point = p;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

SweepSpec lessonSweepSpec(const Lesson& lesson) {
  SweepSpec spec;
  spec.config = lesson.runs.front().config;
  spec.lesson = lesson.id;
  spec.jobs = 1;
  if (lesson.sweep) spec.target = lesson.sweep->target;
  return spec;
}

SweepPoint lessonPointOutcome(const LessonJob& job, const LessonRunResult& result,
                              bool stopped_by_user) {
  SweepPoint point = job.point.value_or(SweepPoint{});
  if (!result.stored_run_ids.empty()) point.run_id = result.stored_run_ids.front();
  if (job.target && !result.summary.arms.empty()) {
    measurePoint(point, result.summary.arms.front(), result.steps, result.evals, result.probes,
                 *job.target);
  }
  if (stopped_by_user && point.status != SweepStatus::kReached) {
    point.status = SweepStatus::kInterrupted;
  }
  return point;
}

LessonSession::LessonSession(Lesson lesson, std::string prediction, RunStore* store)
    : lesson_(std::move(lesson)), prediction_(std::move(prediction)), store_(store) {
  if (!prediction_.empty()) evaluateLesson(lesson_, {}, prediction_);
  jobs_ = lessonJobs(lesson_);
  if (!store_) return;
  for (const LessonJob& job : jobs_) RunStore::refuseReadingStore(job.config, store_->path());
  // A sweep lesson's points are also a stored sweep (accumlab-cli show-sweep, the Sweeps tab).
  if (lesson_.sweep) {
    std::vector<SweepPoint> points;
    for (const LessonJob& job : jobs_) points.push_back(*job.point);
    sweep_id_ = SweepStore(*store_).create(
        lesson_.runs.empty() ? lesson_.title : lesson_.runs.front().config.name,
        lessonSweepSpec(lesson_), points);
  }
}

void LessonSession::jobFinished(LessonRunResult result, bool stopped) {
  if (done()) throw std::logic_error("LessonSession::jobFinished: every job has ended");
  const LessonJob& job = jobs_[next()];
  run_ids_.insert(run_ids_.end(), result.stored_run_ids.begin(), result.stored_run_ids.end());
  if (sweep_id_ > 0)
    SweepStore(*store_).updatePoint(sweep_id_, lessonPointOutcome(job, result, stopped));
  results_.push_back(std::move(result));
}

const LessonVerdict& LessonSession::finish() {
  if (verdict_) return *verdict_;
  // Kept only once it is stored: a verdict the store refused is given again by the next call.
  LessonVerdict verdict = evaluateLesson(lesson_, results_, prediction_);
  if (store_) {
    LessonResultRow row;
    row.lesson_id = lesson_.id;
    row.title = lesson_.title;
    // The answer as judged: a choice given by its number is stored as its text.
    row.prediction = verdict.prediction ? verdict.prediction->predicted : prediction_;
    if (verdict.prediction) row.prediction_correct = verdict.prediction->correct;
    row.all_hold = verdict.allHold();
    row.verdict_json = verdictToJson(verdict, -1);
    row.run_ids = run_ids_;
    result_id_ = LessonStore(*store_).add(row);
  }
  verdict_ = std::move(verdict);
  return *verdict_;
}

}  // namespace accumlab
