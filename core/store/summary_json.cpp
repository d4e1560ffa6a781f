// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/summary_json.h"

#include <cmath>
#include <vector>

#include "accumlab/variance_ratio.h"
#include "records/record_fields.h"

namespace accumlab::store {

nlohmann::json armSummaryToJson(const ArmSummary& a) {
  nlohmann::json j = {
      {"arm", toString(a.arm)},     {"status", toString(a.status)},
      {"message", a.message},       {"weights_digest", a.weights_digest},
      {"ceiling_op", a.ceiling_op},
  };
  fieldsToJson(j, a, armSummaryFields());
  return j;
}

ArmSummary armSummaryFromJson(const nlohmann::json& j) {
  ArmSummary a;
  if (!j.is_object()) return a;
  const auto text = [&](const char* key) -> const nlohmann::json* {
    return j.contains(key) && j[key].is_string() ? &j[key] : nullptr;
  };
  if (const auto* v = text("arm")) a.arm = parseArmKind(v->get<std::string>());
  if (const auto* v = text("status")) a.status = parseArmStatus(v->get<std::string>());
  if (const auto* v = text("message")) a.message = v->get<std::string>();
  if (const auto* v = text("weights_digest")) a.weights_digest = v->get<std::string>();
  if (const auto* v = text("ceiling_op")) a.ceiling_op = v->get<std::string>();
  fieldsFromJson(j, a, armSummaryFields());
  // Before kinks were told apart, every check counted.
  if (!j.contains("grad_equivalence_rel_diff_without_kinks")) {
    a.grad_equivalence_rel_diff_without_kinks = a.grad_equivalence_rel_diff;
  }
  if (!std::isfinite(a.wall_s)) a.wall_s = 0.0;
  return a;
}

nlohmann::json rowToJson(const RunRow& r) {
  return {{"id", r.id},
          {"experiment_id", r.experiment_id},
          {"experiment_name", r.experiment_name},
          {"name", r.name},
          {"started_at", r.started_at},
          {"ended_at", r.ended_at.empty() ? nlohmann::json() : nlohmann::json(r.ended_at)},
          {"dataset", r.dataset},
          {"model", r.model},
          {"arm", toString(r.arm)},
          {"micro_batch", r.micro_batch},
          {"accum", r.accum},
          {"last_micro_batch", r.last_micro_batch},
          {"last_accum", r.last_accum},
          {"status", toString(r.status)},
          {"steps", r.steps},
          {"samples_seen", r.samples_seen},
          {"final_loss", jsonNumber(r.final_loss)},
          {"val_loss", jsonNumber(r.val_loss)},
          {"val_accuracy", jsonNumber(r.val_accuracy)},
          {"tags", r.tags}};
}

nlohmann::json histogramToJson(const ProbeHistogram& h) {
  if (h.empty()) return nlohmann::json();
  return {{"low", jsonNumber(h.low)},
          {"high", jsonNumber(h.high)},
          {"micro", h.micro},
          {"window", h.window}};
}

ProbeHistogram histogramFromJson(const std::string& text) {
  ProbeHistogram h;
  if (text.empty()) return h;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("micro") || !j.contains("window") || !j["low"].is_number() ||
      !j["high"].is_number()) {
    return h;  // not a histogram this version can draw: none
  }
  try {
    h.low = j["low"].get<double>();
    h.high = j["high"].get<double>();
    h.micro = j["micro"].get<std::vector<int64_t>>();
    h.window = j["window"].get<std::vector<int64_t>>();
  } catch (const nlohmann::json::exception&) {
    return ProbeHistogram{};
  }
  return h.empty() ? ProbeHistogram{} : h;
}

nlohmann::json probeToJson(const ProbeRecord& p, int64_t probes) {
  nlohmann::json j = {
      {"arm", toString(p.arm)}, {"histogram", histogramToJson(p.histogram)}, {"probes", probes}};
  fieldsToJson(j, p, probeFields());
  return j;
}

nlohmann::json varianceProbeToJson(const ProbeRecord& latest, const PooledProbe& pooled,
                                   int64_t probes) {
  nlohmann::json latest_json = probeToJson(latest, probes);
  latest_json.erase("probes");
  nlohmann::json j = {{"arm", toString(latest.arm)}};
  fieldsToJson(j, pooled, pooledProbeFields());
  j["probes"] = probes;
  j["method"] = "weighted mean of log-ratios";
  j["latest"] = std::move(latest_json);
  return j;
}

}  // namespace accumlab::store

namespace accumlab {

// Declared in records.h: the summary of a whole run, the object `run --json` prints.
std::string summaryToJson(const RunSummary& summary, int indent) {
  using nlohmann::json;
  const RunInfo& info = summary.info;
  json arms = json::object();
  for (const ArmSummary& a : summary.arms) {
    json arm = store::armSummaryToJson(a);
    arm.erase("arm");  // the key of the object already names it
    arms[toString(a.arm)] = std::move(arm);
  }
  json j = {
      {"config", json::parse(configToJson(info.config))},
      {"device", info.device},
      {"dataset", info.dataset},
      {"model", info.model},
      {"train_samples", info.train_samples},
      {"val_samples", info.val_samples},
      {"budget_samples", info.budget_samples},
      {"parameters", info.parameters},
      {"class_names", info.class_names},
      {"arms", arms},
      {"variance_probe", json()},
      {"variance_ratio", json()},
  };
  if (summary.variance_probe) {
    // The headline is every probe of the run pooled; the latest alone is under "latest".
    const PooledProbe pooled = summary.variance_probe_pooled
                                   ? *summary.variance_probe_pooled
                                   : poolProbes({*summary.variance_probe}).value();
    j["variance_probe"] =
        store::varianceProbeToJson(*summary.variance_probe, pooled, summary.variance_probes);
  }
  if (const auto r = armVarianceRatio(summary.arms)) {
    j["variance_ratio"] = {{"ratio", store::jsonNumber(r->ci.ratio)},
                           {"ci_low", store::jsonNumber(r->ci.low)},
                           {"ci_high", store::jsonNumber(r->ci.high)},
                           // Not "theory": the arms sit at different weights, so K is only
                           // their batch ratio here; variance_probe is the test of K.
                           {"batch_ratio", r->theory},
                           {"tests_k", false},
                           {"updates", r->updates},
                           {"detrended", true}};
  }
  return j.dump(indent);
}

}  // namespace accumlab
