// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/metrics_sink.h"
#include "accumlab/records.h"
#include "accumlab/sweep.h"

namespace accumlab {

/// How close a measured value must come to its theory (docs/lessons.md).
struct LessonTolerance {
  enum class Kind {
    kRelative,  ///< |measured − theory| ≤ value·|theory|
    kFactor,    ///< theory/value ≤ measured ≤ theory·value (ratios, batch sizes)
    kAbsolute,  ///< |measured − theory| ≤ value
  };
  Kind kind = Kind::kFactor;
  double value = 2.0;
};

/// A quantity measured from a lesson's runs (docs/lessons.md). With `over`, the quantity is the
/// ratio of `metric` at (run, arm) to `metric` at (over_run, over_arm).
struct LessonMeasure {
  /// Per arm: loss_variance (detrended), loss_variance_plain, final_train_loss, val_loss,
  /// val_accuracy, samples_per_s, peak_tensor_bytes, noise_per_update, b_simple, steps,
  /// grad_equivalence (accum: the largest check that was not a kink), weight_equivalence
  /// (big-batch). Per run: probe_ratio.
  /// Per sweep: sweep_b_crit, sweep_b_simple, sweep_variance_slope.
  std::string metric;
  std::string run;  ///< the run's id in the lesson; empty: its first run
  ArmKind arm = ArmKind::kAccum;
  bool has_over = false;
  std::string over_run;  ///< empty: the same run as `run`
  ArmKind over_arm = ArmKind::kAccum;
};

/// One statement the runs must bear out: a measure against a theory value.
struct LessonCheck {
  enum class Compare {
    kNear,     ///< within the tolerance of theory, or theory inside the measure's interval
    kAtMost,   ///< measured ≤ theory
    kAtLeast,  ///< measured ≥ theory
  };
  std::string id;
  std::string name;  ///< what is measured, for people ("per-update loss variance, m=8 / m=64")
  std::string unit;  ///< e.g. "×"; empty for a plain number
  LessonMeasure measure;
  Compare compare = Compare::kNear;
  /// The theory value, unless `theory_k` (the accum count K of the measure's run) or
  /// `theory_measure` (another measured quantity) is set.
  double theory = kNaN;
  bool theory_k = false;
  std::optional<LessonMeasure> theory_measure;
  LessonTolerance tolerance;
  std::string holds_text;  ///< shown when the check holds
  std::string fails_text;  ///< shown when it does not
};

/// One run of a lesson: the lesson's config with the run's changes applied.
struct LessonRun {
  std::string id;
  std::string label;
  ExperimentConfig config;
};

/// A lesson's sweep: effective batches (each trained as micro_batch × B/micro_batch) at each
/// LR, every point training its accum arm towards `target`.
struct LessonSweep {
  std::vector<int64_t> effective_batches;
  int64_t micro_batch = 8;
  std::vector<double> lrs;
  SweepTarget target;
};

/// The question a student answers before the run.
struct LessonPrediction {
  enum class Kind { kNumber, kChoice };
  struct Choice {
    std::string text;
    /// The checks (by id) and whether each must hold for this choice to be what the runs
    /// measured.
    std::vector<std::pair<std::string, bool>> when;
  };
  Kind kind = Kind::kNumber;
  std::string question;
  std::string unit;             ///< kNumber
  LessonTolerance tolerance;    ///< kNumber: against the measured value
  std::string against;          ///< kNumber: the check whose measured value answers it
  std::vector<Choice> choices;  ///< kChoice
};

/// A guided experiment (docs/lessons.md): a file under resources/lessons/.
struct Lesson {
  std::string id;    ///< "id" in the file, else the file name without .json
  std::string file;  ///< where it was read from
  std::string title;
  std::string text;                ///< what you will see and why
  std::vector<std::string> plots;  ///< plot ids to show (the app's plot catalog)
  std::vector<LessonRun> runs;     ///< empty for a sweep lesson
  std::optional<LessonSweep> sweep;
  std::optional<LessonPrediction> prediction;
  std::vector<LessonCheck> checks;
};

/// Parses a lesson; `source` names the file in errors. Throws InputError with one sentence
/// naming the file and the field for invalid JSON, a missing or wrong field, an unknown
/// metric or arm, a check that names a run that is not there, or a run's bad config.
Lesson lessonFromJson(const std::string& text, const std::string& source);
/// Reads and parses a lesson file.
Lesson loadLessonFile(const std::string& path);
/// The folder of the lessons that come with AccumLab: $ACCUMLAB_LESSONS when set, else
/// share/accumlab/lessons of an installed AccumLab (found from the executable), else the
/// source tree's resources/lessons.
std::string lessonDirectory();
/// The *.json files of a folder, sorted by name (the lessons' order).
std::vector<std::string> lessonFiles(const std::string& directory);
/// A lesson by its 1-based number in lessonDirectory(), its id, or a path to a file.
/// Throws InputError naming what was asked for when there is no such lesson.
std::string findLessonFile(const std::string& which);

/// What one run of a lesson produced.
struct LessonRunResult {
  std::string id;  ///< the LessonRun's id, or "point-N" for a sweep point
  RunSummary summary;
  std::vector<StepRecord> steps;
  std::vector<EvalRecord> evals;
  std::vector<ProbeRecord> probes;
  std::vector<EventRecord> events;
  std::vector<int64_t> stored_run_ids;  ///< the store's run per arm, when stored
};

/// One run to train for a lesson: a LessonRun, or one point of its sweep.
struct LessonJob {
  std::string id;
  std::string label;  ///< for progress lines
  ExperimentConfig config;
  std::optional<SweepTarget> target;  ///< stop once the arm reaches it
  std::optional<SweepPoint> point;    ///< the sweep point this job trains
};

/// The runs a lesson trains, in order.
std::vector<LessonJob> lessonJobs(const Lesson& lesson);

/// A sweep lesson's spec for SweepStore::create (the shape `accumlab-cli sweep` stores:
/// config, target, and the lesson's id), so its points show in the Sweeps tab.
SweepSpec lessonSweepSpec(const Lesson& lesson);
/// A sweep job's point with the outcome of its run (status, steps to target, …); a run
/// stopped by the user before it reached the target is `interrupted`.
SweepPoint lessonPointOutcome(const LessonJob& job, const LessonRunResult& result,
                              bool stopped_by_user = false);

/// Collects one job's records into a LessonRunResult. Training thread.
class LessonRecorder : public MetricsSink {
 public:
  explicit LessonRecorder(std::string id) { result_.id = std::move(id); }
  void onStep(const StepRecord& r) override { result_.steps.push_back(r); }
  void onEval(const EvalRecord& r) override { result_.evals.push_back(r); }
  void onEvent(const EventRecord& r) override { result_.events.push_back(r); }
  void onProbe(const ProbeRecord& r) override { result_.probes.push_back(r); }
  void onRunFinished(const RunSummary& s) override { result_.summary = s; }
  LessonRunResult& result() { return result_; }

 private:
  LessonRunResult result_;
};

/// A check's outcome.
struct CheckVerdict {
  std::string id;
  std::string name;
  std::string unit;
  double measured = kNaN;
  double low = kNaN;  ///< the measure's 90% interval, when it has one
  double high = kNaN;
  double theory = kNaN;
  std::string compare;    ///< "≈", "≤" or "≥"
  std::string tolerance;  ///< e.g. "within a factor 2"
  bool holds = false;
  std::string sentence;  ///< holds_text or fails_text, or why it could not be measured
};

/// The student's prediction against what was measured.
struct PredictionVerdict {
  std::string question;
  std::string predicted;  ///< as given (a number, or the choice's text)
  std::string measured;   ///< the measured value or the choice the checks point to
  bool correct = false;
  std::string sentence;
};

struct LessonVerdict {
  std::string lesson_id;
  std::string title;
  std::vector<CheckVerdict> checks;
  std::optional<PredictionVerdict> prediction;
  std::optional<SweepAnalysis> sweep;
  std::vector<SweepPoint> sweep_points;
  bool allHold() const;
};

/// Evaluates the checks on the runs' results, and the prediction when one is given (a number,
/// or a choice by its 1-based number or text). Throws InputError for a prediction that is not
/// a number or not one of the choices.
LessonVerdict evaluateLesson(const Lesson& lesson, const std::vector<LessonRunResult>& results,
                             const std::string& prediction = "");

/// The verdict as a JSON object text (NaN as null), and back.
std::string verdictToJson(const LessonVerdict& verdict, int indent = 2);
LessonVerdict verdictFromJson(const std::string& text);
/// The verdict for people: one block per check and the prediction.
std::string formatVerdict(const LessonVerdict& verdict);

}  // namespace accumlab
