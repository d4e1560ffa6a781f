// SPDX-License-Identifier: GPL-3.0-or-later
// The typed files a sweep's point goes out and comes back in: the same for a point started
// by SweepRunner on this machine and one started by a cluster's scheduler.
#include "accumlab/sweep_job.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab/output_file.h"
#include "accumlab/sweep_runner.h"

namespace accumlab {

namespace {

using json = nlohmann::json;

constexpr const char* kJobFormat = "accumlab-sweep-job";
constexpr const char* kOutcomeFormat = "accumlab-sweep-outcome";
constexpr int kVersion = 1;
// A job holds one config: far below this.
constexpr uint64_t kMaxJobBytes = 4u << 20;

}  // namespace

SweepJob makeSweepJob(const SweepPlan& plan, const SweepPoint& point,
                      const std::string& store_path) {
  SweepJob job;
  job.sweep_id = plan.sweep_id;
  job.point = point;
  job.point.status = SweepStatus::kPending;
  job.config = sweepPointConfig(plan.base, point);
  job.config.name =
      (plan.base.name.empty() ? "sweep " + std::to_string(plan.sweep_id) : plan.base.name) + " · " +
      describeSweepPoint(point);
  job.target = plan.target;
  job.store_path = store_path;
  return job;
}

std::string sweepJobToJson(const SweepJob& job) {
  const json j = {{"format", kJobFormat},
                  {"version", kVersion},
                  {"sweep", job.sweep_id},
                  {"point",
                   {{"index", job.point.index},
                    {"micro_batch", job.point.micro_batch},
                    {"accum", job.point.accum},
                    {"lr", job.point.lr}}},
                  {"config", json::parse(configToJson(job.config))},
                  {"target", json::parse(sweepTargetToJson(job.target))},
                  {"db", job.store_path}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

SweepJob readSweepJob(const std::string& path) {
  const std::string text = readWholeFile(path, {"a sweep job", kMaxJobBytes});
  const json j = json::parse(text, nullptr, false);
  const auto refuse = [&](const std::string& what) {
    throw InputError(path + " is not a sweep job of this version: " + what);
  };
  if (!j.is_object() || j.value("format", "") != kJobFormat)
    refuse("no \"format\": \"" + std::string(kJobFormat) + "\"");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() != kVersion) {
    refuse("its version is not " + std::to_string(kVersion));
  }
  const json& p = j.value("point", json::object());
  if (!j.contains("config") || !j["config"].is_object() || !p.is_object() ||
      !p.value("index", json()).is_number_integer() || !j.value("db", json()).is_string() ||
      !j.value("target", json()).is_object()) {
    refuse("it needs \"point\" with an \"index\", \"config\", \"target\" and \"db\"");
  }
  SweepJob job;
  job.sweep_id = j.value("sweep", json(0)).is_number_integer() ? j["sweep"].get<int64_t>() : 0;
  job.config = configFromJson(j["config"].dump(), path);
  validateConfig(job.config);
  job.point.index = p["index"].get<int64_t>();
  job.point.micro_batch = job.config.micro_batch;
  job.point.accum = job.config.accum;
  job.point.lr = job.config.optimizer.lr;
  job.target = sweepTargetFromSpec(json{{"target", j["target"]}}.dump());
  job.store_path = j["db"].get<std::string>();
  return job;
}

std::string sweepJobOutcomeToJson(const SweepJobOutcome& outcome) {
  const json j = {{"format", kOutcomeFormat},
                  {"version", kVersion},
                  {"run_id", outcome.run_id == 0 ? json() : json(outcome.run_id)},
                  {"bad_input", outcome.bad_input},
                  {"error", outcome.error}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::optional<SweepJobOutcome> readSweepJobOutcome(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const json j = json::parse(in, nullptr, false);
  if (!j.is_object() || j.value("format", "") != kOutcomeFormat) return std::nullopt;
  SweepJobOutcome outcome;
  const json& run = j.value("run_id", json());
  if (run.is_number_integer()) outcome.run_id = run.get<int64_t>();
  const json& bad = j.value("bad_input", json());
  outcome.bad_input = bad.is_boolean() && bad.get<bool>();
  const json& error = j.value("error", json());
  if (error.is_string()) outcome.error = error.get<std::string>();
  return outcome;
}

}  // namespace accumlab
