// SPDX-License-Identifier: GPL-3.0-or-later
// Reading lesson files (docs/lessons.md): every problem is one sentence naming the file and
// the field.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "accumlab/executable_path.h"
#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab/lesson.h"
#include "accumlab/plot_ids.h"
#include "config/json_text.h"
#include "lessons/lesson_metrics.h"

#ifndef ACCUMLAB_LESSON_DIR
#define ACCUMLAB_LESSON_DIR "resources/lessons"
#endif
#ifndef ACCUMLAB_SHARE_FROM_BIN
#define ACCUMLAB_SHARE_FROM_BIN "../share/accumlab"
#endif
#ifndef ACCUMLAB_SHARE_FROM_LIBEXEC
#define ACCUMLAB_SHARE_FROM_LIBEXEC "../../share/accumlab"
#endif

namespace accumlab {

using nlohmann::json;

namespace {

// A lesson file is a few KiB of JSON; anything near this is not one.
constexpr uint64_t kMaxLessonBytes = uint64_t{1} << 20;

/// The plots a lesson may ask for: the live plots and the sweep plots of the app.
const std::set<std::string>& knownPlots() {
  static const std::set<std::string> names = [] {
    std::set<std::string> all(livePlotIds().begin(), livePlotIds().end());
    all.insert(sweepPlotIds().begin(), sweepPlotIds().end());
    return all;
  }();
  return names;
}

/// Reads fields of one JSON object, naming `where` (e.g. "checks[2]") in errors.
class Fields {
 public:
  Fields(const json& j, std::string source, std::string where)
      : j_(j), source_(std::move(source)), where_(std::move(where)) {
    if (!j_.is_object()) fail("", "must be a JSON object");
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    std::string field = where_;
    if (!key.empty()) field += (field.empty() ? "" : ".") + key;
    throw InputError(source_ + ": " + (field.empty() ? "the lesson" : "\"" + field + "\"") + " " +
                     what);
  }
  std::string path(const std::string& key) const {
    return where_.empty() ? key : where_ + "." + key;
  }
  bool has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  const json& at(const std::string& key) const {
    if (!has(key)) fail(key, "is missing");
    return j_.at(key);
  }
  std::string text(const std::string& key, bool required = true,
                   const std::string& fallback = "") const {
    if (!has(key)) {
      if (required) fail(key, "is missing");
      return fallback;
    }
    if (!j_.at(key).is_string()) fail(key, "must be a text");
    const std::string s = j_.at(key).get<std::string>();
    if (required && s.empty()) fail(key, "must not be empty");
    return s;
  }
  double number(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_number()) fail(key, "must be a number");
    return v.get<double>();
  }
  const json& array(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_array()) fail(key, "must be a list");
    return v;
  }
  const std::string& source() const { return source_; }

 private:
  const json& j_;
  std::string source_;
  std::string where_;
};

ArmKind readArm(const Fields& f, const std::string& key, ArmKind fallback) {
  if (!f.has(key)) return fallback;
  const std::string name = f.text(key);
  try {
    return parseArmKind(name);
  } catch (const InputError&) {
    f.fail(key, "names an unknown arm '" + name + "' (no-accum, accum or big-batch)");
  }
}

LessonTolerance readTolerance(const Fields& parent, const std::string& key) {
  LessonTolerance t;
  if (!parent.has(key)) return t;
  const Fields f(parent.at(key), parent.source(), parent.path(key));
  int given = 0;
  for (const auto& [name, kind] :
       {std::pair<const char*, LessonTolerance::Kind>{"relative", LessonTolerance::Kind::kRelative},
        {"factor", LessonTolerance::Kind::kFactor},
        {"absolute", LessonTolerance::Kind::kAbsolute}}) {
    if (!f.has(name)) continue;
    ++given;
    t.kind = kind;
    t.value = f.number(name);
    if (!(t.value >= 0) || (kind == LessonTolerance::Kind::kFactor && !(t.value >= 1))) {
      f.fail(name, kind == LessonTolerance::Kind::kFactor ? "must be a factor of at least 1"
                                                          : "must be zero or positive");
    }
  }
  if (given != 1) f.fail("", "must give exactly one of relative, factor or absolute");
  return t;
}

LessonMeasure readMeasure(const Fields& parent, const std::string& key) {
  const Fields f(parent.at(key), parent.source(), parent.path(key));
  LessonMeasure m;
  m.metric = f.text("metric");
  const lessons::LessonMetric* metric = lessons::findLessonMetric(m.metric);
  if (!metric) {
    std::string known;
    for (const lessons::LessonMetric& k : lessons::lessonMetrics()) {
      known += (known.empty() ? "" : ", ") + std::string(k.name);
    }
    f.fail("metric", "names an unknown metric '" + m.metric + "' (known: " + known + ")");
  }
  m.run = f.text("run", false);
  m.arm =
      readArm(f, "arm", m.metric == "weight_equivalence" ? ArmKind::kBigBatch : ArmKind::kAccum);
  if (f.has("over")) {
    const Fields o(f.at("over"), f.source(), f.path("over"));
    m.has_over = true;
    m.over_run = o.text("run", false);
    m.over_arm = readArm(o, "arm", m.arm);
    if (metric->source == lessons::MetricSource::kSweep) {
      f.fail("over", "cannot divide a sweep's figure");
    }
  }
  return m;
}

std::string readFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError("lesson file " + path + " does not exist");
  return readWholeFile(path, {"a lesson file", kMaxLessonBytes});
}

std::string fileStem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
    name.resize(name.size() - 5);
  }
  return name;
}

}  // namespace

Lesson lessonFromJson(const std::string& text, const std::string& source) {
  const json j = parseJsonText(text, source);
  const Fields f(j, source, "");
  Lesson lesson;
  lesson.file = source;
  lesson.id = f.text("id", false, fileStem(source));
  lesson.title = f.text("title");
  lesson.text = f.text("text");
  if (f.has("plots")) {
    for (const json& p : f.array("plots")) {
      if (!p.is_string()) f.fail("plots", "must be a list of plot names");
      if (!knownPlots().count(p.get<std::string>())) {
        std::string known;
        for (const auto& n : knownPlots()) known += (known.empty() ? "" : ", ") + n;
        f.fail("plots",
               "names an unknown plot '" + p.get<std::string>() + "' (known: " + known + ")");
      }
      lesson.plots.push_back(p.get<std::string>());
    }
  }

  // The base config: the defaults with the lesson's "config" on top, then each run's.
  json base = json::parse(configToJson(ExperimentConfig{}));
  if (f.has("config")) {
    if (!f.at("config").is_object())
      f.fail("config", "must be a JSON object of experiment settings");
    base.merge_patch(f.at("config"));
  }
  const auto makeConfig = [&](const json& merged, const std::string& where) {
    ExperimentConfig c = configFromJson(merged.dump(), source + " (" + where + ")");
    try {
      validateConfig(c);
    } catch (const InputError& e) {
      throw InputError(source + " (" + where + "): " + e.what());
    }
    return c;
  };
  if (f.has("runs") && f.has("sweep"))
    f.fail("sweep", "cannot come with \"runs\": a lesson has one or the other");
  if (f.has("sweep")) {
    const Fields s(f.at("sweep"), source, "sweep");
    LessonSweep sweep;
    for (const json& b : s.array("effective_batches")) {
      if (!b.is_number_integer() || b.get<int64_t>() < 1) {
        s.fail("effective_batches", "must be a list of whole numbers of at least 1");
      }
      sweep.effective_batches.push_back(b.get<int64_t>());
    }
    if (sweep.effective_batches.size() < 3)
      s.fail("effective_batches", "needs at least 3 sizes to fit a curve");
    sweep.micro_batch = static_cast<int64_t>(s.number("micro_batch"));
    if (sweep.micro_batch < 1) s.fail("micro_batch", "must be at least 1");
    for (int64_t b : sweep.effective_batches) {
      if (b % sweep.micro_batch != 0 && b > sweep.micro_batch) {
        s.fail("effective_batches", "holds " + std::to_string(b) +
                                        ", which is not a multiple of micro_batch " +
                                        std::to_string(sweep.micro_batch));
      }
    }
    if (s.has("lrs")) {
      for (const json& lr : s.array("lrs")) {
        if (!lr.is_number() || !(lr.get<double>() > 0))
          s.fail("lrs", "must be a list of positive numbers");
        sweep.lrs.push_back(lr.get<double>());
      }
    }
    const ExperimentConfig c = makeConfig(base, "config");
    if (sweep.lrs.empty()) sweep.lrs.push_back(c.optimizer.lr);
    const Fields t(s.at("target"), source, "sweep.target");
    const std::string kind = t.text("kind");
    if (kind == "loss") {
      sweep.target.kind = SweepTarget::Kind::kLoss;
    } else if (kind == "val_accuracy") {
      sweep.target.kind = SweepTarget::Kind::kValAccuracy;
    } else {
      t.fail("kind", "must be \"loss\" or \"val_accuracy\", not '" + kind + "'");
    }
    sweep.target.value = t.number("value");
    if (t.has("smoothing")) sweep.target.smoothing = t.number("smoothing");
    if (!(sweep.target.smoothing >= 0 && sweep.target.smoothing < 1))
      t.fail("smoothing", "must be in [0, 1)");
    lesson.sweep = sweep;
    lesson.runs.push_back({"sweep", "sweep", c});  // the base every point starts from
  } else if (f.has("runs")) {
    const json& runs = f.array("runs");
    if (runs.empty()) f.fail("runs", "must list at least one run");
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string where = "runs[" + std::to_string(i) + "]";
      const Fields r(runs[i], source, where);
      LessonRun run;
      run.id = r.text("id");
      for (const LessonRun& other : lesson.runs) {
        if (other.id == run.id) r.fail("id", "'" + run.id + "' is used twice");
      }
      run.label = r.text("label", false, run.id);
      json merged = base;
      if (r.has("config")) {
        if (!r.at("config").is_object())
          r.fail("config", "must be a JSON object of experiment settings");
        merged.merge_patch(r.at("config"));
      }
      run.config = makeConfig(merged, where + ".config");
      lesson.runs.push_back(std::move(run));
    }
  } else {
    lesson.runs.push_back({"main", "main", makeConfig(base, "config")});
  }

  const auto knownRun = [&](const Fields& where, const std::string& run) {
    if (run.empty() || lesson.sweep) return;
    for (const LessonRun& r : lesson.runs) {
      if (r.id == run) return;
    }
    where.fail("run", "names a run '" + run + "' that the lesson does not have");
  };
  const auto checkMeasure = [&](const Fields& c, const std::string& key, const LessonMeasure& m) {
    const Fields mf(c.at(key), source, c.path(key));
    const bool sweep_metric =
        lessons::findLessonMetric(m.metric)->source == lessons::MetricSource::kSweep;
    if (sweep_metric && !lesson.sweep) {
      mf.fail("metric", "'" + m.metric + "' needs a lesson with a \"sweep\"");
    }
    if (!sweep_metric && lesson.sweep) {
      mf.fail("metric", "'" + m.metric + "' is not a sweep's figure (" +
                            lessons::lessonMetricNames(lessons::MetricSource::kSweep) + ")");
    }
    knownRun(mf, m.run);
    if (m.has_over) knownRun(Fields(mf.at("over"), source, mf.path("over")), m.over_run);
  };

  for (size_t i = 0; i < f.array("checks").size(); ++i) {
    const std::string where = "checks[" + std::to_string(i) + "]";
    const Fields c(f.array("checks")[i], source, where);
    LessonCheck check;
    check.id = c.text("id");
    for (const LessonCheck& other : lesson.checks) {
      if (other.id == check.id) c.fail("id", "'" + check.id + "' is used twice");
    }
    check.name = c.text("name");
    check.unit = c.text("unit", false);
    check.measure = readMeasure(c, "measure");
    checkMeasure(c, "measure", check.measure);
    const std::string compare = c.text("compare", false, "near");
    if (compare == "near") {
      check.compare = LessonCheck::Compare::kNear;
    } else if (compare == "at_most") {
      check.compare = LessonCheck::Compare::kAtMost;
    } else if (compare == "at_least") {
      check.compare = LessonCheck::Compare::kAtLeast;
    } else {
      c.fail("compare", "must be \"near\", \"at_most\" or \"at_least\", not '" + compare + "'");
    }
    const json& theory = c.at("theory");
    if (theory.is_number()) {
      check.theory = theory.get<double>();
    } else if (theory.is_string() && theory.get<std::string>() == "K") {
      check.theory_k = true;
    } else if (theory.is_object()) {
      const Fields t(c.at("theory"), source, c.path("theory"));
      check.theory_measure = readMeasure(t, "measure");
      checkMeasure(t, "measure", *check.theory_measure);
    } else {
      c.fail("theory", "must be a number, \"K\" or {\"measure\": {…}}");
    }
    check.tolerance = readTolerance(c, "tolerance");
    check.holds_text = c.text("holds");
    check.fails_text = c.text("fails");
    lesson.checks.push_back(std::move(check));
  }
  if (lesson.checks.empty()) f.fail("checks", "must list at least one check");

  if (f.has("prediction")) {
    const Fields p(f.at("prediction"), source, "prediction");
    LessonPrediction pred;
    pred.question = p.text("question");
    const std::string kind = p.text("kind");
    const auto knownCheck = [&](const Fields& where, const std::string& key,
                                const std::string& id) {
      for (const LessonCheck& c : lesson.checks) {
        if (c.id == id) return;
      }
      where.fail(key, "names a check '" + id + "' that the lesson does not have");
    };
    if (kind == "number") {
      pred.kind = LessonPrediction::Kind::kNumber;
      pred.unit = p.text("unit", false);
      pred.tolerance = readTolerance(p, "tolerance");
      pred.against = p.text("against");
      knownCheck(p, "against", pred.against);
    } else if (kind == "choice") {
      pred.kind = LessonPrediction::Kind::kChoice;
      const json& choices = p.array("choices");
      if (choices.size() < 2) p.fail("choices", "must offer at least two choices");
      for (size_t i = 0; i < choices.size(); ++i) {
        const Fields ch(choices[i], source, "prediction.choices[" + std::to_string(i) + "]");
        LessonPrediction::Choice choice;
        choice.text = ch.text("text");
        const Fields when(ch.at("when"), source, ch.path("when"));
        for (const auto& [id, holds] : ch.at("when").items()) {
          if (!holds.is_boolean())
            when.fail(id, "must be true or false (whether that check holds)");
          knownCheck(when, id, id);
          choice.when.emplace_back(id, holds.get<bool>());
        }
        if (choice.when.empty()) ch.fail("when", "must name at least one check");
        pred.choices.push_back(std::move(choice));
      }
    } else {
      p.fail("kind", "must be \"number\" or \"choice\", not '" + kind + "'");
    }
    lesson.prediction = std::move(pred);
  }
  return lesson;
}

Lesson loadLessonFile(const std::string& path) {
  return lessonFromJson(readFile(path), "lesson file " + path);
}

std::string lessonDirectory() {
  if (const char* dir = std::getenv("ACCUMLAB_LESSONS"); dir != nullptr && *dir != '\0') return dir;
  // An installed AccumLab: the lessons in share/accumlab/, reached from bin/ (accumlab,
  // accumlab-cli) or libexec/accumlab/ (the CLI's engine).
  if (const std::string bin_dir = executableDir(); !bin_dir.empty()) {
    for (const char* share : {ACCUMLAB_SHARE_FROM_BIN, ACCUMLAB_SHARE_FROM_LIBEXEC}) {
      const std::string dir = bin_dir + share + "/lessons";
      struct stat st {};
      if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return dir;
    }
  }
  return ACCUMLAB_LESSON_DIR;
}

std::vector<std::string> lessonFiles(const std::string& directory) {
  std::vector<std::string> files;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return files;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 && name[0] != '.') {
      files.push_back(directory + "/" + name);
    }
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

std::string findLessonFile(const std::string& which) {
  struct stat st {};
  if (which.find('/') != std::string::npos ||
      (which.size() > 5 && which.substr(which.size() - 5) == ".json")) {
    return which;  // a path: loadLessonFile says what is wrong with it
  }
  const std::string dir = lessonDirectory();
  const std::vector<std::string> files = lessonFiles(dir);
  if (!which.empty() && std::all_of(which.begin(), which.end(), ::isdigit)) {
    const size_t n = std::strtoul(which.c_str(), nullptr, 10);
    if (n >= 1 && n <= files.size()) return files[n - 1];
    throw InputError("there is no lesson " + which + ": " + dir + " has " +
                     std::to_string(files.size()) + " (see accumlab-cli lesson list)");
  }
  for (const std::string& file : files) {
    if (fileStem(file) == which) return file;
    try {
      if (loadLessonFile(file).id == which) return file;
    } catch (const InputError&) {
    }
  }
  if (::stat(which.c_str(), &st) == 0) return which;
  throw InputError("there is no lesson '" + which + "' in " + dir +
                   " (give its number, its id or a file; see accumlab-cli lesson list)");
}

}  // namespace accumlab
