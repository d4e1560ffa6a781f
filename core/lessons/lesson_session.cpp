#include "accumlab/lesson_session.h"

#include <stdexcept>

#include "accumlab/run_store.h"

namespace accumlab {

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
    sweep_id_ =
        store_->createSweep(lesson_.runs.empty() ? lesson_.title : lesson_.runs.front().config.name,
                            lessonSweepSpec(lesson_), points);
  }
}

void LessonSession::jobFinished(LessonRunResult result, bool stopped) {
  if (done()) throw std::logic_error("LessonSession::jobFinished: every job has ended");
  const LessonJob& job = jobs_[next()];
  run_ids_.insert(run_ids_.end(), result.stored_run_ids.begin(), result.stored_run_ids.end());
  if (sweep_id_ > 0) store_->updateSweepPoint(sweep_id_, lessonPointOutcome(job, result, stopped));
  results_.push_back(std::move(result));
}

const LessonVerdict& LessonSession::finish() {
  if (verdict_) return *verdict_;
  verdict_ = evaluateLesson(lesson_, results_, prediction_);
  if (store_) {
    LessonResultRow row;
    row.lesson_id = lesson_.id;
    row.title = lesson_.title;
    // The answer as judged: a choice given by its number is stored as its text.
    row.prediction = verdict_->prediction ? verdict_->prediction->predicted : prediction_;
    if (verdict_->prediction) row.prediction_correct = verdict_->prediction->correct;
    row.all_hold = verdict_->allHold();
    row.verdict_json = verdictToJson(*verdict_, -1);
    row.run_ids = run_ids_;
    result_id_ = store_->addLessonResult(row);
  }
  return *verdict_;
}

}  // namespace accumlab
