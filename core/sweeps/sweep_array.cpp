// SPDX-License-Identifier: GPL-3.0-or-later
// A sweep as a scheduler's array job: its results folder written, and brought home again.
#include "accumlab/sweep_array.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <system_error>

#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab/output_file.h"
#include "accumlab/store_merger.h"
#include "accumlab/sweep_job.h"
#include "accumlab/sweep_runner.h"
#include "accumlab/sweep_store.h"

namespace accumlab {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kArrayFormat = "accumlab-sweep-array";
constexpr int kArrayVersion = 1;
constexpr uint64_t kMaxArrayBytes = 16u << 20;

std::string arrayFile(const std::string& folder) { return folder + "/sweep.json"; }

/// Single quotes for the shell, with a quote inside written '\''.
std::string shellQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// "point 3 (B=64 (8×8) lr=0.02)".
std::string namePoint(const SweepPoint& p) {
  return "point " + std::to_string(p.index) + " (" + describeSweepPoint(p) + ")";
}

}  // namespace

std::string newSweepArrayId() {
  std::random_device random;
  std::string id;
  char hex[9];
  for (int i = 0; i < 4; ++i) {
    std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(random()));
    id += hex;
  }
  return id;
}

std::string sweepArrayFile(const std::string& folder, int64_t index, const std::string& kind) {
  return folder + "/point-" + std::to_string(index) + "." + kind;
}

void writeSweepArray(const std::string& folder, const SweepArray& array) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw InputError("cannot make the results folder " + folder + ": " + ec.message());
  const std::string absolute = fs::absolute(folder, ec).lexically_normal().string();
  if (fs::exists(arrayFile(folder), ec)) {
    throw InputError(folder + " holds a sweep already (sweep.json); give a new results folder");
  }
  json points = json::array();
  SweepPlan plan;
  plan.base = *array.spec.config;
  plan.target = array.spec.target;
  for (const SweepPoint& p : array.points) {
    points.push_back(
        {{"index", p.index}, {"micro_batch", p.micro_batch}, {"accum", p.accum}, {"lr", p.lr}});
    writeFileWhole(
        sweepArrayFile(folder, p.index, "job.json"),
        sweepJobToJson(makeSweepJob(plan, p, sweepArrayFile(absolute, p.index, "sqlite"))));
  }
  const json j = {{"format", kArrayFormat},
                  {"version", kArrayVersion},
                  {"id", array.id},
                  {"spec", json::parse(sweepSpecToJson(array.spec))},
                  {"points", points}};
  writeFileWhole(arrayFile(folder), j.dump(2) + "\n");
}

SweepArray readSweepArray(const std::string& folder) {
  const std::string path = arrayFile(folder);
  const json j = json::parse(readWholeFile(path, {"a sweep's results folder", kMaxArrayBytes}),
                             nullptr, false);
  if (!j.is_object() || j.value("format", "") != kArrayFormat ||
      j.value("version", json()) != json(kArrayVersion) || !j.value("id", json()).is_string() ||
      !j.value("spec", json()).is_object() || !j.value("points", json()).is_array()) {
    throw InputError(path +
                     " is not a sweep's results folder of this version (written by "
                     "`accumlab-cli sweep --slurm`)");
  }
  SweepArray array;
  array.id = j["id"].get<std::string>();
  array.spec = sweepSpecFromJson(j["spec"].dump(), path);
  if (!array.spec.config) throw InputError(path + " has no config");
  for (const json& p : j["points"]) {
    SweepPoint point;
    point.index = p.value("index", json(-1)).is_number_integer() ? p["index"].get<int64_t>() : -1;
    point.micro_batch =
        p.value("micro_batch", json(0)).is_number_integer() ? p["micro_batch"].get<int64_t>() : 0;
    point.accum = p.value("accum", json(0)).is_number_integer() ? p["accum"].get<int64_t>() : 0;
    point.lr = p.value("lr", json()).is_number() ? p["lr"].get<double>() : kNaN;
    if (point.index != static_cast<int64_t>(array.points.size()) || point.micro_batch < 1 ||
        point.accum < 1 || !(point.lr > 0)) {
      throw InputError(path + ": point " + std::to_string(array.points.size()) +
                       " needs its index, micro_batch, accum and lr");
    }
    array.points.push_back(point);
  }
  return array;
}

std::string slurmArrayScript(const std::string& folder, size_t points, const std::string& program,
                             const std::vector<std::string>& sbatch_options) {
  std::error_code ec;
  const std::string absolute = fs::absolute(folder, ec).lexically_normal().string();
  std::string s = "#!/bin/bash\n";
  s += "# One task per point of the sweep in " + absolute + " (docs/clusters.md).\n";
  s += "# Written by accumlab-cli sweep --slurm; collect with accumlab-cli sweep collect.\n";
  s += "#SBATCH --job-name=accumlab-sweep\n";
  s += "#SBATCH --array=0-" + std::to_string(points == 0 ? 0 : points - 1) + "\n";
  s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  s += "#SBATCH --output=" + absolute + "/point-%a.log\n";
  for (const std::string& option : sbatch_options) s += "#SBATCH " + option + "\n";
  s += "exec " + shellQuoted(program) + " sweep-point " + shellQuoted(absolute) +
       " --point \"$SLURM_ARRAY_TASK_ID\"\n";
  return s;
}

CollectedSweep collectSweepArray(RunStore& store, const std::string& folder) {
  const SweepArray array = readSweepArray(folder);
  CollectedSweep out;
  out.points = array.points.size();
  SweepStore sweeps(store);
  for (const SweepRow& row : sweeps.list()) {
    if (sweepSpecFromJson(row.spec_json, "sweep " + std::to_string(row.id)).origin == array.id) {
      out.sweep_id = row.id;
      break;
    }
  }
  SweepSpec spec = array.spec;
  spec.origin = array.id;
  if (out.sweep_id == 0) out.sweep_id = sweeps.create(spec.config->name, spec, array.points);
  const SweepDetail stored = sweeps.get(out.sweep_id);
  for (const SweepPoint& planned : array.points) {
    const auto was = std::find_if(stored.points.begin(), stored.points.end(),
                                  [&](const SweepPoint& p) { return p.index == planned.index; });
    // A point that ended is kept; a failed one is read again, as its task may have run again.
    if (was != stored.points.end() && was->done() && was->status != SweepStatus::kFailed) {
      out.kept.push_back(planned.index);
      continue;
    }
    const std::optional<SweepJobOutcome> outcome =
        readSweepJobOutcome(sweepArrayFile(folder, planned.index, "outcome.json"));
    SweepPoint point = planned;
    if (!outcome) {
      out.missing.push_back(namePoint(planned) + ": no outcome yet");
      continue;
    }
    if (outcome->run_id == 0) {
      point.status = SweepStatus::kFailed;
      point.message = outcome->error.empty() ? "it stored no run" : outcome->error;
      out.failed.push_back(namePoint(planned) + ": " + point.message);
      sweeps.updatePoint(out.sweep_id, point);
      continue;
    }
    const std::vector<MergedStore> merged =
        StoreMerger(store).merge({sweepArrayFile(folder, planned.index, "sqlite")});
    const auto run =
        std::find_if(merged.front().runs.begin(), merged.front().runs.end(),
                     [&](const MergedRun& r) { return r.source_id == outcome->run_id; });
    if (run == merged.front().runs.end()) {
      throw InputError(sweepArrayFile(folder, planned.index, "sqlite") + " has no run " +
                       std::to_string(outcome->run_id) + ", which its outcome names");
    }
    point.run_id = run->id;
    const RunDetail detail = store.run(point.run_id);
    const RunSeries series = store.series(point.run_id);
    measurePoint(point, detail.summary, series.steps, series.evals, series.probes,
                 array.spec.target);
    if (!outcome->error.empty() && point.message.empty()) point.message = outcome->error;
    if (point.status == SweepStatus::kFailed)
      out.failed.push_back(namePoint(planned) + ": " + point.message);
    sweeps.updatePoint(out.sweep_id, point);
    out.added.push_back(planned.index);
  }
  return out;
}

}  // namespace accumlab
