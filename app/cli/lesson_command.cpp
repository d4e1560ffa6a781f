// SPDX-License-Identifier: GPL-3.0-or-later
#include "lesson_command.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "accumlab/input_error.h"
#include "accumlab/lesson.h"
#include "accumlab/lesson_session.h"
#include "accumlab/lesson_store.h"
#include "accumlab/run_session.h"
#include "accumlab/run_store.h"
#include "engine_handoff.h"
#include "progress_sink.h"
#include "stop_on_signal.h"
#include "text_table.h"

namespace accumlab::cli {

namespace {

/// The latest attempt at each lesson in the store (none when there is no store file).
std::map<std::string, LessonResultRow> latestResults(const std::string& db) {
  std::map<std::string, LessonResultRow> latest;
  if (::access(db.c_str(), F_OK) != 0) return latest;
  StoreOptions options;
  options.create_if_missing = false;
  RunStore store(db, options);
  for (LessonResultRow& row : LessonStore(store).list()) {
    latest.try_emplace(row.lesson_id, std::move(row));  // newest first: keep the first
  }
  return latest;
}

}  // namespace

LessonCommand::LessonCommand(CLI::App& parent) {
  app_ = parent.add_subcommand("lesson", kLessonAbout);
  app_->require_subcommand(1);
  const std::string db_help = "Run database (default: " + RunStore::defaultPath() + ")";

  list_ =
      app_->add_subcommand("list", "The lessons, with the verdict of your latest attempt at each");
  list_->add_flag("--json", json_, "Print the list as JSON");
  list_->add_option("--db", db_, db_help);

  run_ = app_->add_subcommand("run", "Train a lesson's runs and check what they show");
  run_->add_option("lesson", which_,
                   "The lesson's number in `lesson list`, its id, or a lesson file")
      ->required();
  run_->add_option("--predict", predict_,
                   "Your answer to the lesson's question, given before the run: a number, or a "
                   "choice's number or text");
  run_->add_flag("--json", json_, "Print the verdict as JSON on stdout");
  run_->add_flag("--quiet,-q", quiet_, "No progress display");
  auto* db = run_->add_option("--db", db_, db_help);
  run_->add_flag("--no-store", no_store_, "Do not store the runs and the verdict")->excludes(db);

  results_ = app_->add_subcommand("results", "Your attempts at the lessons, newest first");
  results_->add_flag("--json", json_, "Print the attempts as JSON");
  results_->add_option("--db", db_, db_help);
}

std::string LessonCommand::dbPath() const { return db_.empty() ? RunStore::defaultPath() : db_; }

int LessonCommand::execute() {
  if (list_->parsed()) return list();
  if (run_->parsed()) return run();
  return results();
}

int LessonCommand::list() const {
  const std::string dir = lessonDirectory();
  const std::vector<std::string> files = lessonFiles(dir);
  if (files.empty())
    throw InputError("there are no lessons in " + dir + " (set ACCUMLAB_LESSONS to their folder)");
  const auto latest = latestResults(dbPath());
  nlohmann::json out = nlohmann::json::array();
  TextTable table({"#", "", "id", "title", "runs"});
  for (size_t i = 0; i < files.size(); ++i) {
    const Lesson lesson = loadLessonFile(files[i]);
    const auto it = latest.find(lesson.id);
    const std::string mark = it == latest.end() ? "" : it->second.all_hold ? "✓" : "✗";
    const size_t jobs = lessonJobs(lesson).size();
    const std::string runs =
        lesson.sweep ? std::to_string(jobs) + " (sweep)" : std::to_string(jobs);
    table.add({std::to_string(i + 1), mark, lesson.id, lesson.title, runs});
    nlohmann::json entry = {{"number", i + 1},       {"id", lesson.id},
                            {"title", lesson.title}, {"file", files[i]},
                            {"runs", jobs},          {"sweep", lesson.sweep.has_value()}};
    if (it != latest.end())
      entry["latest"] = {{"result_id", it->second.id}, {"all_hold", it->second.all_hold}};
    out.push_back(entry);
  }
  if (json_) {
    std::cout << out.dump(2) << std::endl;
  } else {
    std::cout << table.str()
              << "✓/✗: every check held / not every check held in your latest attempt.\n"
              << "Run one with: accumlab-cli lesson run N [--predict X]\n";
  }
  return 0;
}

int LessonCommand::results() const {
  StoreOptions options;
  options.create_if_missing = false;
  RunStore store(dbPath(), options);
  const std::vector<LessonResultRow> rows = LessonStore(store).list();
  if (json_) {
    nlohmann::json out = nlohmann::json::array();
    for (const LessonResultRow& r : rows) {
      out.push_back(
          {{"id", r.id},
           {"lesson", r.lesson_id},
           {"title", r.title},
           {"finished_at", r.finished_at},
           {"prediction", r.prediction},
           {"prediction_correct",
            r.prediction_correct ? nlohmann::json(*r.prediction_correct) : nlohmann::json(nullptr)},
           {"all_hold", r.all_hold},
           {"run_ids", r.run_ids},
           {"verdict", nlohmann::json::parse(r.verdict_json, nullptr, false)}});
    }
    std::cout << out.dump(2) << std::endl;
    return 0;
  }
  TextTable table({"id", "finished", "lesson", "checks", "prediction", "runs"});
  for (const LessonResultRow& r : rows) {
    // Consecutive ids as ranges: a sweep lesson trains many.
    std::string runs;
    for (size_t i = 0; i < r.run_ids.size();) {
      size_t j = i;
      while (j + 1 < r.run_ids.size() && r.run_ids[j + 1] == r.run_ids[j] + 1) ++j;
      runs += (runs.empty() ? "" : " ") + std::to_string(r.run_ids[i]);
      if (j > i) runs += (j == i + 1 ? " " : "-") + std::to_string(r.run_ids[j]);
      i = j + 1;
    }
    std::string prediction = r.prediction.empty() ? "—" : r.prediction;
    if (r.prediction_correct) prediction += *r.prediction_correct ? " ✓" : " ✗";
    table.add({std::to_string(r.id), r.finished_at, r.title,
               r.all_hold ? "✓ all hold" : "✗ not all", prediction, runs});
  }
  std::cout << table.str();
  return 0;
}

int LessonCommand::run() {
  const std::string file = findLessonFile(which_);
  const std::string db = dbPath();
  // One connection for the attempt's own writes (the sweep, its points, the verdict); each
  // run's rows go through that run's StoreSink.
  std::unique_ptr<RunStore> results_store;
  if (!no_store_) results_store = std::make_unique<RunStore>(db);
  // A bad prediction, or a job that would read the store, is refused before anything trains.
  LessonSession session(loadLessonFile(file), predict_, results_store.get());
  const Lesson& lesson = session.lesson();
  const std::vector<LessonJob>& jobs = session.jobs();
  if (lesson.prediction && predict_.empty() && !quiet_) {
    std::fprintf(stderr, "%s\n  (answer it with --predict to have it checked)\n",
                 lesson.prediction->question.c_str());
  }

  std::atomic<Trainer*> current{nullptr};
  std::atomic<bool> stopping{false};
  app::StopOnSignal on_signal("accumlab-cli", "stopping the lesson at the next window boundary",
                              [&] {
                                stopping = true;
                                if (Trainer* t = current.load()) t->requestStop();
                              });
  const auto started = std::chrono::steady_clock::now();
  while (!session.done() && !stopping) {
    const LessonJob& job = jobs[session.next()];
    if (!quiet_) {
      std::fprintf(stderr, "lesson %s: run %zu/%zu: %s\n", lesson.id.c_str(), session.next() + 1,
                   jobs.size(), job.label.c_str());
    }
    RunSessionOptions options;
    if (!no_store_) options.store_path = db;
    options.target = job.target;
    RunSession run(job.config, options);
    Trainer& trainer = run.trainer();
    LessonRecorder recorder(job.id);
    ProgressSink progress(stderr, isatty(fileno(stderr)) != 0);
    std::vector<MetricsSink*> sinks = {&recorder};
    if (!quiet_) sinks.push_back(&progress);
    current = &trainer;
    if (stopping) trainer.requestStop();
    run.run(sinks);
    current = nullptr;
    run.finish();
    for (const StoredRun& r : run.storedRuns()) {
      recorder.result().stored_run_ids.push_back(r.run_id);
    }
    session.jobFinished(std::move(recorder.result()), stopping);
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (const int signo = on_signal.signalReceived()) {
    std::fprintf(stderr,
                 "accumlab-cli: the lesson was stopped before its runs ended; no verdict\n");
    return 128 + signo;
  }

  const LessonVerdict& verdict = session.finish();
  const int64_t result_id = session.resultId();
  const int64_t sweep_id = session.sweepId();
  const std::vector<int64_t>& run_ids = session.runIds();
  if (json_) {
    nlohmann::json out = nlohmann::json::parse(verdictToJson(verdict));
    out["file"] = file;
    out["wall_s"] = wall_s;
    if (!no_store_) {
      out["store"] = {{"db", db}, {"lesson_result", result_id}, {"run_ids", run_ids}};
      if (sweep_id > 0) out["store"]["sweep_id"] = sweep_id;
    }
    std::cout << out.dump(2) << std::endl;
  } else {
    std::cout << formatVerdict(verdict);
    char line[160];
    std::snprintf(line, sizeof line, "%zu run%s in %.1f s", jobs.size(),
                  jobs.size() == 1 ? "" : "s", wall_s);
    std::cout << line;
    if (!no_store_) {
      std::cout << "; stored as lesson result " << result_id;
      if (sweep_id > 0) std::cout << " and sweep " << sweep_id;
      std::cout << " in " << db;
    }
    std::cout << "\n" << std::flush;
  }
  return verdict.allHold() ? 0 : 1;
}

}  // namespace accumlab::cli
