// SPDX-License-Identifier: GPL-3.0-or-later
// A lesson's runs against its checks and the student's prediction (docs/lessons.md).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "accumlab/input_error.h"
#include "accumlab/lesson.h"
#include "accumlab/variance_ratio.h"
#include "lessons/lesson_metrics.h"

namespace accumlab {

using nlohmann::json;

namespace {

/// A measured value, its 90% interval when it has one, or why it could not be measured.
struct Measured {
  double value = kNaN;
  double low = kNaN;
  double high = kNaN;
  std::string missing;
};

std::string verdictNumber(double v) {
  if (std::isnan(v)) return "—";
  char buf[32];
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e6)) {
    std::snprintf(buf, sizeof buf, "%.2e", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

std::string withUnit(double v, const std::string& unit) {
  if (unit.empty() || std::isnan(v)) return verdictNumber(v);
  return verdictNumber(v) + (unit == "×" || unit == "%" ? "" : " ") + unit;
}

std::string toleranceText(const LessonTolerance& t) {
  switch (t.kind) {
    case LessonTolerance::Kind::kFactor:
      return "within a factor " + verdictNumber(t.value);
    case LessonTolerance::Kind::kRelative:
      return "within " + verdictNumber(100 * t.value) + "%";
    case LessonTolerance::Kind::kAbsolute:
      return "within ±" + verdictNumber(t.value);
  }
  return "";
}

bool within(double measured, double theory, const LessonTolerance& t) {
  if (!std::isfinite(measured) || !std::isfinite(theory)) return false;
  switch (t.kind) {
    case LessonTolerance::Kind::kFactor:
      if (theory <= 0 || measured <= 0) return false;
      return measured >= theory / t.value && measured <= theory * t.value;
    case LessonTolerance::Kind::kRelative:
      return std::fabs(measured - theory) <= t.value * std::fabs(theory);
    case LessonTolerance::Kind::kAbsolute:
      return std::fabs(measured - theory) <= t.value;
  }
  return false;
}

class Evidence {
 public:
  Evidence(const Lesson& lesson, const std::vector<LessonRunResult>& results,
           const std::optional<SweepAnalysis>& sweep)
      : lesson_(lesson), results_(results), sweep_(sweep) {}

  Measured measure(const LessonMeasure& m) const {
    const lessons::LessonMetric* metric = lessons::findLessonMetric(m.metric);
    if (metric && metric->source == lessons::MetricSource::kSweep) return sweepFigure(m.metric);
    Measured top = single(m.metric, m.run, m.arm);
    if (!m.has_over || !top.missing.empty()) return top;
    const std::string over_run = m.over_run.empty() ? m.run : m.over_run;
    Measured bottom = single(m.metric, over_run, m.over_arm);
    if (!bottom.missing.empty()) return bottom;
    Measured out;
    if (m.metric == "loss_variance" || m.metric == "loss_variance_plain") {
      const ArmSummary* a = arm(m.run, m.arm);
      const ArmSummary* b = arm(over_run, m.over_arm);
      const RatioInterval ci =
          m.metric == "loss_variance"
              ? detrendedRatio(top.value, a->loss_variance_count, bottom.value,
                               b->loss_variance_count)
              : varianceRatioInterval(top.value, varianceDof(a->loss_variance_count), bottom.value,
                                      varianceDof(b->loss_variance_count));
      out.value = ci.ratio;
      out.low = ci.low;
      out.high = ci.high;
    } else {
      out.value = top.value / bottom.value;
    }
    if (std::isnan(out.value)) out.missing = "the ratio has no value (a zero or missing figure)";
    return out;
  }

  /// K of the run a measure reads (the accum count of its config).
  double accumOf(const LessonMeasure& m) const {
    const LessonRunResult* r = result(m.run);
    if (r != nullptr) return static_cast<double>(r->summary.info.config.accum);
    return kNaN;
  }

 private:
  const LessonRunResult* result(const std::string& run) const {
    const std::string id = run.empty() && !lesson_.runs.empty() ? lesson_.runs.front().id : run;
    for (const LessonRunResult& r : results_) {
      if (r.id == id) return &r;
    }
    return nullptr;
  }
  const ArmSummary* arm(const std::string& run, ArmKind kind) const {
    const LessonRunResult* r = result(run);
    if (r == nullptr) return nullptr;
    for (const ArmSummary& a : r->summary.arms) {
      if (a.arm == kind) return &a;
    }
    return nullptr;
  }

  Measured single(const std::string& metric, const std::string& run, ArmKind kind) const {
    Measured out;
    const LessonRunResult* r = result(run);
    const std::string run_name = run.empty() ? "the run" : "run '" + run + "'";
    if (r == nullptr) {
      out.missing = run_name + " has not been trained";
      return out;
    }
    if (metric == "probe_ratio") {
      if (!r->summary.variance_probe) {
        out.missing = run_name + " ran no variance probe";
        return out;
      }
      // The run's probes pooled: the estimate the app and the CLI headline.
      const auto& pooled = r->summary.variance_probe_pooled;
      out.value = pooled ? pooled->ratio : r->summary.variance_probe->ratio;
      out.low = pooled ? pooled->ci_low : r->summary.variance_probe->ci_low;
      out.high = pooled ? pooled->ci_high : r->summary.variance_probe->ci_high;
      return out;
    }
    const ArmSummary* a = arm(run, kind);
    if (a == nullptr) {
      out.missing = run_name + " has no " + toString(kind) + " arm";
      return out;
    }
    if (const lessons::LessonMetric* m = lessons::findLessonMetric(metric); m && m->arm_value) {
      out.value = m->arm_value(*a);
    }
    if (std::isnan(out.value)) {
      out.missing = "the " + toString(kind) + " arm of " + run_name + " has no " + metric;
    }
    return out;
  }

  Measured sweepFigure(const std::string& metric) const {
    Measured out;
    if (!sweep_) {
      out.missing = "the sweep has not been trained";
      return out;
    }
    if (metric == "sweep_b_crit") {
      if (sweep_->steps_fit) out.value = sweep_->steps_fit->b_crit;
      if (std::isnan(out.value)) {
        out.missing = sweep_->steps_fit_error.empty() ? "the steps fit found no critical batch"
                                                      : sweep_->steps_fit_error;
      }
    } else if (metric == "sweep_b_simple") {
      out.value = sweep_->b_simple;
      if (std::isnan(out.value)) out.missing = "no point reached the target with a B_simple";
    } else if (metric == "sweep_variance_slope") {
      if (sweep_->variance_slope) {
        out.value = sweep_->variance_slope->slope;
        out.low = sweep_->variance_slope->ci_low;
        out.high = sweep_->variance_slope->ci_high;
      } else {
        out.missing = sweep_->variance_slope_error;
      }
    }
    return out;
  }

  const Lesson& lesson_;
  const std::vector<LessonRunResult>& results_;
  const std::optional<SweepAnalysis>& sweep_;
};

bool parseNumber(const std::string& text, double& out) {
  const char* begin = text.c_str();
  char* end = nullptr;
  out = std::strtod(begin, &end);
  if (end == begin) return false;
  while (*end != '\0' && std::isspace(static_cast<unsigned char>(*end))) ++end;
  // A unit after the number ("8x", "8 ×") is allowed.
  return std::isfinite(out);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

PredictionVerdict judgePrediction(const LessonPrediction& p,
                                  const std::vector<CheckVerdict>& checks,
                                  const std::string& given) {
  PredictionVerdict v;
  v.question = p.question;
  if (p.kind == LessonPrediction::Kind::kNumber) {
    double x = 0;
    if (!parseNumber(given, x)) {
      throw InputError("the prediction '" + given +
                       "' is not a number (the question: " + p.question + ")");
    }
    v.predicted = withUnit(x, p.unit);
    const auto it = std::find_if(checks.begin(), checks.end(),
                                 [&](const CheckVerdict& c) { return c.id == p.against; });
    const double measured = it != checks.end() ? it->measured : kNaN;
    v.measured = withUnit(measured, p.unit);
    v.correct = within(x, measured, p.tolerance);
    if (std::isnan(measured)) {
      v.sentence = "There is no measured value to hold your prediction against.";
    } else if (v.correct) {
      v.sentence = "Your prediction " + v.predicted + " is " + toleranceText(p.tolerance) +
                   " of the measured " + v.measured + ".";
    } else {
      v.sentence = "Your prediction " + v.predicted + " is not " + toleranceText(p.tolerance) +
                   " of the measured " + v.measured + ".";
    }
    return v;
  }
  // A choice: by its 1-based number or its text.
  int chosen = -1;
  double x = 0;
  if (parseNumber(given, x) && x == std::floor(x) && x >= 1 &&
      x <= static_cast<double>(p.choices.size())) {
    chosen = static_cast<int>(x) - 1;
  }
  for (size_t i = 0; chosen < 0 && i < p.choices.size(); ++i) {
    if (lower(p.choices[i].text) == lower(given)) chosen = static_cast<int>(i);
  }
  if (chosen < 0) {
    std::string list;
    for (size_t i = 0; i < p.choices.size(); ++i) {
      list += (i ? "; " : "") + std::to_string(i + 1) + ": " + p.choices[i].text;
    }
    throw InputError("the prediction '" + given + "' is not one of the choices (" + list + ")");
  }
  v.predicted = p.choices[static_cast<size_t>(chosen)].text;
  int measured = -1;
  for (size_t i = 0; measured < 0 && i < p.choices.size(); ++i) {
    bool match = true;
    for (const auto& [id, holds] : p.choices[i].when) {
      const auto it = std::find_if(checks.begin(), checks.end(),
                                   [&](const CheckVerdict& c) { return c.id == id; });
      if (it == checks.end() || it->holds != holds || std::isnan(it->measured)) match = false;
    }
    if (match) measured = static_cast<int>(i);
  }
  v.measured =
      measured >= 0 ? p.choices[static_cast<size_t>(measured)].text : "none of the choices";
  v.correct = measured == chosen;
  if (measured < 0) {
    v.sentence = "The runs bear out none of the choices; look at the checks below.";
  } else if (v.correct) {
    v.sentence = "Right: the runs show \"" + v.measured + "\".";
  } else {
    v.sentence =
        "Not this time: you chose \"" + v.predicted + "\", the runs show \"" + v.measured + "\".";
  }
  return v;
}

json nullable(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double readDouble(const json& j, const char* key) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : kNaN;
}

/// Every field of a check's verdict with its JSON key, once (`visit(key, member)`): what
/// verdictToJson writes and verdictFromJson reads.
template <typename C, typename Visit>
void forEachCheckField(C& c, Visit&& visit) {
  visit("id", c.id);
  visit("name", c.name);
  visit("unit", c.unit);
  visit("measured", c.measured);
  visit("ci_low", c.low);
  visit("ci_high", c.high);
  visit("theory", c.theory);
  visit("compare", c.compare);
  visit("tolerance", c.tolerance);
  visit("holds", c.holds);
  visit("sentence", c.sentence);
}

/// A visit that writes each field into `out`: a number that is not finite as null.
auto verdictWriter(json& out) {
  return [&out](const char* key, const auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, double>) {
      out[key] = nullable(m);
    } else {
      out[key] = m;
    }
  };
}

/// A visit that reads each field from `in`: a number missing or null as NaN, any other field
/// missing as its default.
auto verdictReader(const json& in) {
  return [&in](const char* key, auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, double>) {
      m = readDouble(in, key);
    } else {
      m = in.value(key, m);
    }
  };
}

}  // namespace

bool LessonVerdict::allHold() const {
  return !checks.empty() &&
         std::all_of(checks.begin(), checks.end(), [](const CheckVerdict& c) { return c.holds; });
}

LessonVerdict evaluateLesson(const Lesson& lesson, const std::vector<LessonRunResult>& results,
                             const std::string& prediction) {
  LessonVerdict verdict;
  verdict.lesson_id = lesson.id;
  verdict.title = lesson.title;
  std::optional<SweepAnalysis> analysis;
  if (lesson.sweep) {
    for (const LessonJob& job : lessonJobs(lesson)) {
      const auto it = std::find_if(results.begin(), results.end(),
                                   [&](const LessonRunResult& r) { return r.id == job.id; });
      verdict.sweep_points.push_back(it != results.end() ? lessonPointOutcome(job, *it)
                                                         : *job.point);
    }
    analysis = analyzeSweep(verdict.sweep_points);
    verdict.sweep = analysis;
  }
  const Evidence evidence(lesson, results, analysis);
  for (const LessonCheck& check : lesson.checks) {
    CheckVerdict v;
    v.id = check.id;
    v.name = check.name;
    v.unit = check.unit;
    const Measured m = evidence.measure(check.measure);
    v.measured = m.value;
    v.low = m.low;
    v.high = m.high;
    std::string missing = m.missing;
    if (check.theory_measure) {
      const Measured t = evidence.measure(*check.theory_measure);
      v.theory = t.value;
      if (missing.empty()) missing = t.missing;
    } else if (check.theory_k) {
      v.theory = evidence.accumOf(check.measure);
    } else {
      v.theory = check.theory;
    }
    switch (check.compare) {
      case LessonCheck::Compare::kNear:
        v.compare = "≈";
        v.tolerance = toleranceText(check.tolerance);
        v.holds = within(v.measured, v.theory, check.tolerance) ||
                  (std::isfinite(v.low) && std::isfinite(v.high) && v.low <= v.theory &&
                   v.theory <= v.high);
        break;
      case LessonCheck::Compare::kAtMost:
        v.compare = "≤";
        v.holds = v.measured <= v.theory;
        break;
      case LessonCheck::Compare::kAtLeast:
        v.compare = "≥";
        v.holds = v.measured >= v.theory;
        break;
    }
    if (!missing.empty()) {
      v.holds = false;
      v.sentence = "Not measured: " + missing + ".";
    } else {
      v.sentence = v.holds ? check.holds_text : check.fails_text;
    }
    verdict.checks.push_back(std::move(v));
  }
  if (lesson.prediction && !prediction.empty()) {
    verdict.prediction = judgePrediction(*lesson.prediction, verdict.checks, prediction);
  }
  return verdict;
}

// The prediction's verdict in JSON, by its members' names (a missing key reads as the default).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PredictionVerdict, question, predicted, measured,
                                                correct, sentence)

std::string verdictToJson(const LessonVerdict& verdict, int indent) {
  json j = {
      {"lesson", verdict.lesson_id}, {"title", verdict.title}, {"all_hold", verdict.allHold()}};
  json checks = json::array();
  for (const CheckVerdict& c : verdict.checks) {
    json check = json::object();
    forEachCheckField(c, verdictWriter(check));
    checks.push_back(std::move(check));
  }
  j["checks"] = checks;
  if (verdict.prediction) {
    j["prediction"] = *verdict.prediction;
  }
  if (verdict.sweep) {
    json points = json::array();
    for (const SweepPoint& p : verdict.sweep_points)
      points.push_back(json::parse(sweepPointToJson(p)));
    j["sweep"] = {
        {"points", points},
        {"b_crit", nullable(verdict.sweep->steps_fit ? verdict.sweep->steps_fit->b_crit : kNaN)},
        {"b_simple", nullable(verdict.sweep->b_simple)}};
  }
  return j.dump(indent);
}

LessonVerdict verdictFromJson(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  LessonVerdict v;
  if (!j.is_object()) throw InputError("a lesson verdict is not a JSON object");
  v.lesson_id = j.value("lesson", "");
  v.title = j.value("title", "");
  for (const json& c : j.value("checks", json::array())) {
    CheckVerdict cv;
    forEachCheckField(cv, verdictReader(c));
    v.checks.push_back(std::move(cv));
  }
  if (j.contains("prediction") && j.at("prediction").is_object()) {
    v.prediction = j.at("prediction").get<PredictionVerdict>();
  }
  if (j.contains("sweep") && j.at("sweep").is_object()) {
    for (const json& p : j.at("sweep").value("points", json::array())) {
      SweepPoint point;
      sweepPointFromJson(p.dump(), point);
      v.sweep_points.push_back(point);
    }
    v.sweep = analyzeSweep(v.sweep_points);
  }
  return v;
}

namespace {

std::string checkLine(const CheckVerdict& c) {
  std::string line =
      std::string(c.holds ? "✓ " : "✗ ") + c.name + ": measured " + withUnit(c.measured, c.unit);
  if (std::isfinite(c.low) && std::isfinite(c.high)) {
    line += " [" + verdictNumber(c.low) + ", " + verdictNumber(c.high) + "]";
  }
  line += ", theory " + c.compare + " " + withUnit(c.theory, c.unit);
  if (!c.tolerance.empty()) line += " (" + c.tolerance + ")";
  return line;
}

}  // namespace

std::string formatVerdict(const LessonVerdict& verdict) {
  std::string out = verdict.title + "\n";
  if (verdict.prediction) {
    const PredictionVerdict& p = *verdict.prediction;
    out += std::string(p.correct ? "✓ " : "✗ ") + "Prediction: " + p.question + " You said " +
           p.predicted + "; measured: " + p.measured + ".\n  " + p.sentence + "\n";
  }
  for (const CheckVerdict& c : verdict.checks) out += checkLine(c) + "\n  " + c.sentence + "\n";
  out += verdict.allHold() ? "Every check holds.\n" : "Not every check holds.\n";
  return out;
}

}  // namespace accumlab
