// SPDX-License-Identifier: GPL-3.0-or-later
// Lesson files, their checks and verdicts (docs/lessons.md), against hand-made run results
// whose right answers are known.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "accumlab/input_error.h"
#include "accumlab/lesson.h"
#include "accumlab/variance_ratio.h"

namespace accumlab {
namespace {

std::string errorOf(const std::string& text) {
  try {
    lessonFromJson(text, "lesson file bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// A one-run lesson with one check of `measure` near theory K.
const char* kVarianceLesson = R"({
  "title": "t", "text": "x",
  "config": {"micro_batch": 8, "accum": 8, "arms": ["no-accum", "big-batch"]},
  "prediction": {"question": "q?", "kind": "number", "unit": "×", "tolerance": {"factor": 1.5},
                 "against": "ratio"},
  "checks": [{"id": "ratio", "name": "ratio", "unit": "×",
              "measure": {"metric": "loss_variance", "arm": "no-accum", "over": {"arm": "big-batch"}},
              "compare": "near", "theory": "K", "tolerance": {"factor": 2},
              "holds": "it holds", "fails": "it fails"}]
})";

LessonRunResult varianceRun(double no_accum_var, double big_var, int64_t n_small, int64_t n_big) {
  LessonRunResult r;
  r.id = "main";
  r.summary.info.config.micro_batch = 8;
  r.summary.info.config.accum = 8;
  ArmSummary a;
  a.arm = ArmKind::kNoAccum;
  a.loss_variance_detrended = no_accum_var;
  a.loss_variance_count = n_small;
  ArmSummary b;
  b.arm = ArmKind::kBigBatch;
  b.loss_variance_detrended = big_var;
  b.loss_variance_count = n_big;
  r.summary.arms = {a, b};
  return r;
}

TEST(Lesson, ShippedLessonsParseAndHaveRunsChecksAndShortTexts) {
  const auto files = lessonFiles(std::string(ACCUMLAB_SOURCE_DIR) + "/resources/lessons");
  ASSERT_GE(files.size(), 6u);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const Lesson lesson = loadLessonFile(file);
    EXPECT_FALSE(lesson.title.empty());
    EXPECT_FALSE(lesson.checks.empty());
    EXPECT_FALSE(lessonJobs(lesson).empty());
    // "A short text (≤ 150 words)".
    int words = 0;
    bool in_word = false;
    for (char c : lesson.text) {
      const bool space = c == ' ' || c == '\n';
      if (!space && !in_word) ++words;
      in_word = !space;
    }
    EXPECT_LE(words, 150);
  }
}

TEST(Lesson, RunsPatchTheLessonConfigAndASweepMakesOnePointPerBatch) {
  const Lesson two = lessonFromJson(R"({
    "title": "t", "text": "x", "config": {"micro_batch": 16, "accum": 4, "data": "blobs"},
    "runs": [{"id": "a", "config": {"model": "cnn_bn"}}, {"id": "b", "config": {"accum": 2}}],
    "checks": [{"id": "c", "name": "n", "measure": {"metric": "steps", "run": "b"},
                "compare": "at_least", "theory": 1, "holds": "h", "fails": "f"}]})",
                                    "two.json");
  ASSERT_EQ(two.runs.size(), 2u);
  EXPECT_EQ(two.id, "two");
  EXPECT_EQ(two.runs[0].config.model, "cnn_bn");
  EXPECT_EQ(two.runs[0].config.accum, 4);
  EXPECT_EQ(two.runs[1].config.model, "mlp");
  EXPECT_EQ(two.runs[1].config.accum, 2);
  EXPECT_EQ(two.runs[1].config.data, "blobs");

  const Lesson sweep = lessonFromJson(R"({
    "title": "t", "text": "x", "config": {"optimizer": {"lr": 0.05}},
    "sweep": {"effective_batches": [4, 8, 32], "micro_batch": 8,
              "target": {"kind": "loss", "value": 0.4}},
    "checks": [{"id": "c", "name": "n", "measure": {"metric": "sweep_b_crit"},
                "theory": {"measure": {"metric": "sweep_b_simple"}}, "holds": "h", "fails": "f"}]})",
                                      "s.json");
  const auto jobs = lessonJobs(sweep);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].config.micro_batch, 4);  // a batch below m is one micro-batch
  EXPECT_EQ(jobs[0].config.accum, 1);
  EXPECT_EQ(jobs[2].config.micro_batch, 8);
  EXPECT_EQ(jobs[2].config.accum, 4);
  EXPECT_EQ(jobs[2].config.arms, std::vector<ArmKind>{ArmKind::kAccum});
  EXPECT_DOUBLE_EQ(jobs[2].config.optimizer.lr, 0.05);
  ASSERT_TRUE(jobs[2].target.has_value());
  EXPECT_DOUBLE_EQ(jobs[2].target->value, 0.4);
}

TEST(Lesson, BadFilesNameTheFileAndTheField) {
  EXPECT_EQ(errorOf("{\"title\": "), "lesson file bad.json is not valid JSON (byte 11)");
  EXPECT_EQ(errorOf(R"({"text": "x", "checks": []})"),
            "lesson file bad.json: \"title\" is missing");
  const std::string unknown = errorOf(R"({"title": "t", "text": "x", "checks": [
      {"id": "c", "name": "n", "measure": {"metric": "loss_varience"}, "theory": 1,
       "holds": "h", "fails": "f"}]})");
  EXPECT_NE(
      unknown.find("lesson file bad.json: \"checks[0].measure.metric\" names an unknown metric "
                   "'loss_varience'"),
      std::string::npos)
      << unknown;
  EXPECT_EQ(errorOf(R"({"title": "t", "text": "x", "checks": [
      {"id": "c", "name": "n", "measure": {"metric": "steps", "run": "nope"}, "theory": 1,
       "holds": "h", "fails": "f"}]})"),
            "lesson file bad.json: \"checks[0].measure.run\" names a run 'nope' that the lesson "
            "does not have");
  EXPECT_EQ(errorOf(R"({"title": "t", "text": "x", "checks": [
      {"id": "c", "name": "n", "measure": {"metric": "steps"}, "theory": 1, "holds": "h"}]})"),
            "lesson file bad.json: \"checks[0].fails\" is missing");
  EXPECT_EQ(errorOf(R"({"title": "t", "text": "x", "checks": [
      {"id": "c", "name": "n", "measure": {"metric": "steps"}, "theory": 1, "holds": "h",
       "fails": "f", "tolerance": {"factor": 0.5}}]})"),
            "lesson file bad.json: \"checks[0].tolerance.factor\" must be a factor of at least 1");
  const std::string config = errorOf(R"({"title": "t", "text": "x", "config": {"micro_batch": 0},
      "checks": [{"id": "c", "name": "n", "measure": {"metric": "steps"}, "theory": 1,
                  "holds": "h", "fails": "f"}]})");
  EXPECT_EQ(config, "lesson file bad.json (config): micro-batch size must be at least 1, got 0");
  EXPECT_EQ(errorOf(R"({"title": "t", "text": "x", "plots": ["los"], "checks": []})")
                .rfind("lesson file bad.json: \"plots\" names an unknown plot 'los'", 0),
            0u);
  EXPECT_EQ(errorOf(R"({"title": "t", "text": "x", "checks": [
      {"id": "c", "name": "n", "measure": {"metric": "steps"}, "theory": 1, "holds": "h", "fails": "f"}],
      "prediction": {"question": "q", "kind": "number", "against": "d"}})"),
            "lesson file bad.json: \"prediction.against\" names a check 'd' that the lesson does "
            "not have");
  EXPECT_THROW(loadLessonFile("/nonexistent/lesson.json"), InputError);
}

TEST(Lesson, VarianceRatioCheckUsesTheDetrendedIntervalAgainstK) {
  const Lesson lesson = lessonFromJson(kVarianceLesson, "v.json");
  // Ratio 20 over 100 updates each: outside a factor 2 of K = 8, but is 8 inside the 90%
  // interval? The interval is the F-distribution's, as variance_ratio computes it.
  const RatioInterval ci = detrendedRatio(20.0, 100, 1.0, 100);
  const LessonVerdict far = evaluateLesson(lesson, {varianceRun(20.0, 1.0, 100, 100)});
  ASSERT_EQ(far.checks.size(), 1u);
  EXPECT_DOUBLE_EQ(far.checks[0].measured, 20.0);
  EXPECT_DOUBLE_EQ(far.checks[0].low, ci.low);
  EXPECT_DOUBLE_EQ(far.checks[0].high, ci.high);
  EXPECT_DOUBLE_EQ(far.checks[0].theory, 8.0);
  EXPECT_EQ(far.checks[0].holds, ci.low <= 8.0);
  EXPECT_FALSE(far.checks[0].holds);  // 20 over 100 updates each: [13, 31] or so
  EXPECT_EQ(far.checks[0].sentence, "it fails");
  EXPECT_FALSE(far.allHold());

  const LessonVerdict near = evaluateLesson(lesson, {varianceRun(9.0, 1.0, 100, 100)}, "8");
  EXPECT_TRUE(near.checks[0].holds);
  EXPECT_EQ(near.checks[0].sentence, "it holds");
  EXPECT_TRUE(near.allHold());
  ASSERT_TRUE(near.prediction.has_value());
  EXPECT_TRUE(near.prediction->correct);  // 8 is within a factor 1.5 of 9
  EXPECT_FALSE(evaluateLesson(lesson, {varianceRun(9.0, 1.0, 100, 100)}, "4x").prediction->correct);

  // A wide interval (few updates) holds the theory even when the estimate is off by more
  // than the tolerance: the data cannot tell them apart.
  EXPECT_TRUE(evaluateLesson(lesson, {varianceRun(20.0, 1.0, 6, 6)}).checks[0].holds);
}

TEST(Lesson, MissingFiguresAndBadPredictionsSaySo) {
  const Lesson lesson = lessonFromJson(kVarianceLesson, "v.json");
  const LessonVerdict none = evaluateLesson(lesson, {});
  EXPECT_FALSE(none.checks[0].holds);
  EXPECT_EQ(none.checks[0].sentence, "Not measured: the run has not been trained.");
  LessonRunResult one_arm = varianceRun(1.0, 1.0, 10, 10);
  one_arm.summary.arms.pop_back();
  EXPECT_EQ(evaluateLesson(lesson, {one_arm}).checks[0].sentence,
            "Not measured: the run has no big-batch arm.");
  EXPECT_THROW(evaluateLesson(lesson, {}, "eight"), InputError);
}

TEST(Lesson, ChoicePredictionIsJudgedByWhichChecksHold) {
  const Lesson lesson = lessonFromJson(R"({
    "title": "t", "text": "x", "runs": [{"id": "a"}, {"id": "b"}],
    "prediction": {"question": "which?", "kind": "choice", "choices": [
      {"text": "Only A", "when": {"a-exact": true, "b-differs": true}},
      {"text": "Both", "when": {"a-exact": true, "b-differs": false}}]},
    "checks": [
      {"id": "a-exact", "name": "a", "measure": {"metric": "grad_equivalence", "run": "a"},
       "compare": "at_most", "theory": 1e-5, "holds": "h", "fails": "f"},
      {"id": "b-differs", "name": "b", "measure": {"metric": "grad_equivalence", "run": "b"},
       "compare": "at_least", "theory": 1e-3, "holds": "h", "fails": "f"}]})",
                                       "c.json");
  const auto run = [](const char* id, double equiv) {
    LessonRunResult r;
    r.id = id;
    ArmSummary a;
    a.arm = ArmKind::kAccum;
    a.grad_equivalence_rel_diff = equiv;
    a.grad_equivalence_rel_diff_without_kinks = equiv;
    r.summary.arms = {a};
    return r;
  };
  const LessonVerdict v = evaluateLesson(lesson, {run("a", 3e-7), run("b", 0.2)}, "only a");
  EXPECT_TRUE(v.allHold());
  ASSERT_TRUE(v.prediction.has_value());
  EXPECT_TRUE(v.prediction->correct);
  EXPECT_EQ(v.prediction->measured, "Only A");
  const LessonVerdict both = evaluateLesson(lesson, {run("a", 3e-7), run("b", 1e-6)}, "1");
  EXPECT_FALSE(both.allHold());
  EXPECT_EQ(both.prediction->measured, "Both");
  EXPECT_FALSE(both.prediction->correct);
  EXPECT_THROW(evaluateLesson(lesson, {}, "3"), InputError);

  // A kink (float32 rounding at a ReLU's 0, which float64 removed) is not accumulation's error.
  LessonRunResult kinked = run("a", 1.1e-2);
  kinked.summary.arms[0].grad_equivalence_kinks = 1;
  kinked.summary.arms[0].grad_equivalence_largest_kink = 1.1e-2;
  kinked.summary.arms[0].grad_equivalence_rel_diff_without_kinks = 3e-7;
  const LessonVerdict at_kink = evaluateLesson(lesson, {kinked, run("b", 0.2)}, "only a");
  EXPECT_TRUE(at_kink.allHold());
  EXPECT_DOUBLE_EQ(at_kink.checks[0].measured, 3e-7);

  // The verdict survives its JSON form (the store and the app read it back).
  const LessonVerdict back = verdictFromJson(verdictToJson(v));
  ASSERT_EQ(back.checks.size(), 2u);
  EXPECT_DOUBLE_EQ(back.checks[0].measured, 3e-7);
  EXPECT_TRUE(std::isnan(back.checks[0].low));
  EXPECT_EQ(back.checks[1].compare, "≥");
  EXPECT_TRUE(back.allHold());
  EXPECT_EQ(back.prediction->measured, "Only A");
  EXPECT_NE(formatVerdict(v).find("✓ a: measured 3.00e-07, theory ≤ 1.00e-05"), std::string::npos)
      << formatVerdict(v);
}

}  // namespace
}  // namespace accumlab
