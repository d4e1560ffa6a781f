// SPDX-License-Identifier: GPL-3.0-or-later
#include "runs/run_loader.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "accumlab/run_store.h"

namespace accumlab::ui {

namespace {

/// m and K at the end of an experiment's runs, as the store found them; 0 when unknown.
struct EndSizes {
  int64_t m = 0;
  int64_t k = 0;
  bool from_accum = false;  ///< read from the accum arm (which alone knows K)
};

/// The ids of an experiment's loaded runs as people select them in the Runs list: "run 4",
/// "runs 4–6", "runs 4, 6".
std::string idLabel(std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  const bool consecutive =
      ids.size() > 2 && ids.back() - ids.front() + 1 == static_cast<int64_t>(ids.size());
  if (consecutive) return "runs " + std::to_string(ids.front()) + "–" + std::to_string(ids.back());
  std::string label = ids.size() == 1 ? "run " : "runs ";
  for (size_t i = 0; i < ids.size(); ++i) label += (i ? ", " : "") + std::to_string(ids[i]);
  return label;
}

/// How a loaded experiment is named in legends: "runs 4–6 · fashion-mnist · mlp · 8×8", with
/// "→16×8" when m or K changed during the run, and the run's own name first when it has one.
std::string runLabel(const std::string& ids, const RunDetail& d, const EndSizes& end) {
  std::string label = ids + " · ";
  if (!d.row.name.empty()) label += d.row.name + " · ";
  return label + d.config.data + " · " + d.config.model + " · " +
         batchSizesText(d.config.micro_batch, d.config.accum,
                        end.m > 0 ? end.m : d.config.micro_batch,
                        end.k > 0 ? end.k : d.config.accum);
}

bool sameEvent(const EventRecord& a, const EventRecord& b) {
  return std::tie(a.samples_seen, a.kind, a.arm, a.message) ==
         std::tie(b.samples_seen, b.kind, b.arm, b.message);
}

}  // namespace

std::vector<RunData> loadRuns(RunStore& store, const std::vector<int64_t>& run_ids) {
  std::map<int64_t, RunData> by_experiment;
  std::map<int64_t, RunDetail> first_detail;
  std::map<int64_t, EndSizes> end_sizes;
  std::map<int64_t, std::vector<int64_t>> ids_of;  // the loaded runs of each experiment
  std::vector<int64_t> order;                      // experiments in the order the runs were given
  for (int64_t id : run_ids) {
    const RunDetail d = store.run(id);
    const bool first = by_experiment.count(d.row.experiment_id) == 0;
    RunData& run = by_experiment[d.row.experiment_id];
    ids_of[d.row.experiment_id].push_back(id);
    if (first) {
      order.push_back(d.row.experiment_id);
      first_detail.emplace(d.row.experiment_id, d);
      run.info.config = d.config;
      run.info.device = d.device;
      run.info.dataset = d.dataset_description;
      run.info.model = d.model_description;
    }
    EndSizes& end = end_sizes[d.row.experiment_id];
    if (d.row.arm == ArmKind::kAccum) {
      end = {d.row.last_micro_batch, d.row.last_accum, true};
    } else if (d.row.arm == ArmKind::kNoAccum && !end.from_accum) {
      end = {d.row.last_micro_batch, 0, false};
    }
    RunSeries series = store.series(id);
    ArmSeries& arm = run.arm(d.row.arm);
    arm.steps = std::move(series.steps);
    arm.evals = std::move(series.evals);
    run.probes.insert(run.probes.end(), series.probes.begin(), series.probes.end());
    arm.summary = d.summary;
    arm.summary.arm = d.row.arm;
    arm.summary.status = d.row.status;
    arm.has_summary = true;
    run.info.budget_samples = std::max(run.info.budget_samples, d.config.samples);
    // Each arm carries the experiment-wide events too: keep one copy.
    for (const EventRecord& e : d.events) {
      const bool seen = std::any_of(run.events.begin(), run.events.end(),
                                    [&](const EventRecord& x) { return sameEvent(x, e); });
      if (!seen) run.events.push_back(e);
    }
  }
  std::vector<RunData> out;
  for (int64_t exp : order) {
    RunData& run = by_experiment[exp];
    run.id_label = idLabel(ids_of[exp]);
    run.label = runLabel(run.id_label, first_detail.at(exp), end_sizes[exp]);
    std::stable_sort(
        run.events.begin(), run.events.end(),
        [](const EventRecord& a, const EventRecord& b) { return a.wall_ms < b.wall_ms; });
    out.push_back(std::move(run));
  }
  return out;
}

std::vector<RunData> loadExperiments(RunStore& store, const std::vector<int64_t>& run_ids) {
  std::vector<int64_t> all;
  std::vector<int64_t> experiments;
  for (int64_t id : run_ids) {
    const RunDetail d = store.run(id);
    if (std::find(experiments.begin(), experiments.end(), d.row.experiment_id) != experiments.end())
      continue;
    experiments.push_back(d.row.experiment_id);
    RunFilter filter;
    filter.experiment_id = d.row.experiment_id;
    std::vector<RunRow> rows = store.listRuns(filter);
    std::sort(rows.begin(), rows.end(),
              [](const RunRow& a, const RunRow& b) { return a.arm < b.arm; });
    for (const RunRow& r : rows) all.push_back(r.id);
  }
  return loadRuns(store, all);
}

}  // namespace accumlab::ui
