// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/export_formats.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "accumlab/run_store.h"
#include "accumlab/variance_ratio.h"
#include "records/record_fields.h"
#include "store/schema.h"
#include "store/summary_json.h"

namespace accumlab::store {

namespace {

/// The shortest text that reads back as the same double; empty for NaN.
void appendNumber(std::string& out, double v) {
  if (std::isnan(v)) return;
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void appendInteger(std::string& out, int64_t v) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

/// A field of `r` as a CSV cell: empty for NaN, a flag as 0 or 1.
template <typename R>
void appendField(std::string& out, const RecordField<R>& f, const R& r) {
  if (f.real) {
    appendNumber(out, r.*f.real);
  } else {
    appendInteger(out, f.flag ? (r.*f.flag ? 1 : 0) : r.*f.integer);
  }
}

/// Records as columns: {field: [value of each record]} (NaN is null).
template <typename R>
nlohmann::json fieldColumnsToJson(const std::vector<R>& records,
                                  const std::vector<RecordField<R>>& fields) {
  nlohmann::json columns = nlohmann::json::object();
  for (const auto& f : fields) {
    nlohmann::json values = nlohmann::json::array();
    for (const R& r : records) values.push_back(fieldToJson(f, r));
    columns[f.name] = std::move(values);
  }
  return columns;
}

/// CSV needs quotes only around cells with a comma, quote or newline.
std::string csvCell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

/// The run's headline after each of its probes: the probes up to and including the i-th
/// pooled (poolProbes), so the last one is the run's own `variance_probe`.
std::vector<PooledProbe> pooledAfterEachProbe(const std::vector<ProbeRecord>& probes) {
  std::vector<PooledProbe> out;
  std::vector<ProbeRecord> so_far;
  for (const ProbeRecord& p : probes) {
    so_far.push_back(p);
    out.push_back(poolProbes(so_far).value_or(PooledProbe{}));
  }
  return out;
}

}  // namespace

std::string exportCsv(const std::vector<ExportedRun>& runs) {
  const auto& columns = stepFields();
  const auto& eval_columns = evalFields();
  std::string out = "run_id,arm";
  for (const auto& c : columns) out += std::string(",") + c.name;
  for (const auto& c : withoutAxes(eval_columns)) out += std::string(",val_") + c.name;
  out += ",val_text_sample";
  for (const auto& c : pooledProbeFields()) out += std::string(",probe_") + c.name;
  out += '\n';
  for (const ExportedRun& run : runs) {
    std::string prefix;
    appendInteger(prefix, run.detail.row.id);
    prefix += "," + csvCell(toString(run.detail.row.arm));
    const auto& steps = run.series.steps;
    const auto& evals = run.series.evals;
    const auto& probes = run.series.probes;
    const std::vector<PooledProbe> headline = pooledAfterEachProbe(probes);
    size_t s = 0, e = 0, p = 0;
    // Merge the two step-ordered lists: a step row carries the evaluation at its step.
    while (s < steps.size() || e < evals.size()) {
      out += prefix;
      const bool take_step =
          s < steps.size() && (e >= evals.size() || steps[s].step <= evals[e].step);
      const EvalRecord* eval = nullptr;
      int64_t row_step = 0;
      if (take_step) {
        const StepRecord& r = steps[s++];
        row_step = r.step;
        for (const auto& c : columns) {
          out += ',';
          appendField(out, c, r);
        }
        if (e < evals.size() && evals[e].step == r.step) eval = &evals[e++];
      } else {
        // An evaluation without a step row: its step, samples_seen and wall_ms only.
        eval = &evals[e++];
        row_step = eval->step;
        for (size_t i = 0; i < columns.size(); ++i) {
          out += ',';
          if (i < kAxisFields) appendField(out, eval_columns[i], *eval);
        }
      }
      for (const auto& c : withoutAxes(eval_columns)) {
        out += ',';
        if (eval) appendField(out, c, *eval);
      }
      out += ',';
      if (eval) out += csvCell(eval->text_sample);
      // The headline as it stood after the probe taken at this step (the last probe of a
      // step when several were; probes are taken after their step's window).
      const PooledProbe* pooled = nullptr;
      while (p < probes.size() && probes[p].step <= row_step) pooled = &headline[p++];
      for (const auto& c : pooledProbeFields()) {
        out += ',';
        if (pooled) appendField(out, c, *pooled);
      }
      out += '\n';
    }
  }
  return out;
}

std::string exportedSummaryJson(const ExportedRun& run) {
  using nlohmann::json;
  json summary = json::parse(run.detail.summary_json);
  if (const auto pooled = poolProbes(run.series.probes)) {
    json headline = json::object();
    fieldsToJson(headline, *pooled, pooledProbeFields());
    headline["probes"] = static_cast<int64_t>(run.series.probes.size());
    summary["variance_probe"] = std::move(headline);
  }
  return summary.dump();
}

std::string exportJson(const std::vector<ExportedRun>& runs, int indent) {
  using nlohmann::json;
  json list = json::array();
  for (const ExportedRun& run : runs) {
    const RunDetail& d = run.detail;
    const RunRow& r = d.row;
    json metrics = fieldColumnsToJson(run.series.steps, stepFields());
    json evals = fieldColumnsToJson(run.series.evals, evalFields());
    evals["text_sample"] = json::array();
    for (const EvalRecord& e : run.series.evals) {
      evals["text_sample"].push_back(e.text_sample.empty() ? json(nullptr) : json(e.text_sample));
    }
    json probes = json::array();
    for (const ProbeRecord& p : run.series.probes) {
      json one = probeToJson(p, static_cast<int64_t>(run.series.probes.size()));
      one.erase("arm");
      one.erase("probes");
      probes.push_back(std::move(one));
    }
    json events = json::array();
    for (const EventRecord& e : d.events) {
      events.push_back({{"samples_seen", e.samples_seen},
                        {"wall_ms", jsonNumber(e.wall_ms)},
                        {"kind", toString(e.kind)},
                        {"arm", armName(e)},
                        {"message", e.message}});
    }
    const json summary = json::parse(exportedSummaryJson(run));
    // The runs-list row (`list --json`), then what only an export holds.
    json one = rowToJson(r);
    one.update({
        {"message", d.summary.message},
        {"device", d.device},
        {"dataset_description", d.dataset_description},
        {"model_description", d.model_description},
        {"note", d.note},
        {"config", json::parse(d.config_json)},
        {"summary", std::move(summary)},
        {"events", std::move(events)},
        {"metrics", std::move(metrics)},
        {"evals", std::move(evals)},
        {"probes", std::move(probes)},
    });
    list.push_back(std::move(one));
  }
  const json doc = {
      {"format", "accumlab-runs"}, {"schema_version", kSchemaVersion}, {"runs", std::move(list)}};
  return doc.dump(indent) + "\n";
}

}  // namespace accumlab::store
