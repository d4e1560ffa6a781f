// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/summary_json.h"

#include <cmath>
#include <vector>

#include "accumlab/variance_ratio.h"

namespace accumlab::store {

namespace {

/// One number or flag of ArmSummary in its JSON object (exactly one member pointer is set).
/// An integer below zero with `negative_is_null` is "not measured" and written as null.
struct SummaryField {
  const char* name;
  double ArmSummary::*real = nullptr;
  int64_t ArmSummary::*integer = nullptr;
  bool ArmSummary::*flag = nullptr;
  bool negative_is_null = false;
};

SummaryField real(const char* name, double ArmSummary::*member) {
  return {name, member, nullptr, nullptr};
}
SummaryField integer(const char* name, int64_t ArmSummary::*member, bool negative_is_null = false) {
  return {name, nullptr, member, nullptr, negative_is_null};
}
SummaryField flag(const char* name, bool ArmSummary::*member) {
  return {name, nullptr, nullptr, member};
}

/// Every number and flag of ArmSummary, once: what summaryToJson() prints, the store keeps
/// and a stored run's summary is read back from. A key missing from an older summary keeps
/// the member's default.
const std::vector<SummaryField>& summaryFields() {
  using A = ArmSummary;
  static const std::vector<SummaryField> fields = {
      integer("micro_batch", &A::micro_batch),
      integer("accum", &A::accum),
      integer("memory_piece", &A::memory_piece),
      integer("steps", &A::steps),
      integer("samples_seen", &A::samples_seen),
      real("final_train_loss", &A::final_train_loss),
      real("val_loss", &A::val_loss),
      real("val_accuracy", &A::val_accuracy),
      real("loss_variance", &A::loss_variance),
      real("loss_variance_detrended", &A::loss_variance_detrended),
      integer("loss_variance_count", &A::loss_variance_count),
      real("noise_per_update", &A::noise_per_update),
      real("b_simple", &A::b_simple),
      real("samples_per_s", &A::samples_per_s),
      real("tokens_per_s", &A::tokens_per_s),
      integer("peak_memory_bytes", &A::peak_memory_bytes),
      integer("peak_tensor_bytes", &A::peak_tensor_bytes, true),
      real("equivalence_rel_diff", &A::equivalence_rel_diff),
      integer("trajectories_parted_at_step", &A::trajectories_parted_at_step),
      real("grad_equivalence_rel_diff", &A::grad_equivalence_rel_diff),
      integer("grad_equivalence_checks", &A::grad_equivalence_checks),
      integer("grad_equivalence_kinks", &A::grad_equivalence_kinks),
      real("grad_equivalence_largest_kink", &A::grad_equivalence_largest_kink),
      real("grad_equivalence_rel_diff_without_kinks", &A::grad_equivalence_rel_diff_without_kinks),
      real("grad_equivalence_mean_full", &A::grad_equivalence_mean_full),
      integer("grad_equivalence_uneven_checks", &A::grad_equivalence_uneven_checks),
      real("grad_equivalence_largest_uneven", &A::grad_equivalence_largest_uneven),
      real("grad_equivalence_first", &A::grad_equivalence_first),
      real("grad_equivalence_last", &A::grad_equivalence_last),
      integer("diverged_at_step", &A::diverged_at_step, true),
      real("wall_s", &A::wall_s),
      flag("batch_dependent", &A::batch_dependent),
      flag("stochastic", &A::stochastic),
      real("allreduce_s", &A::allreduce_s),
  };
  return fields;
}

}  // namespace

nlohmann::json armSummaryToJson(const ArmSummary& a) {
  nlohmann::json j = {
      {"arm", toString(a.arm)},
      {"status", toString(a.status)},
      {"message", a.message},
      {"weights_digest", a.weights_digest},
  };
  for (const SummaryField& f : summaryFields()) {
    if (f.real) {
      j[f.name] = jsonNumber(a.*f.real);
    } else if (f.integer) {
      const int64_t v = a.*f.integer;
      j[f.name] = f.negative_is_null && v < 0 ? nlohmann::json() : nlohmann::json(v);
    } else {
      j[f.name] = a.*f.flag;
    }
  }
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
  for (const SummaryField& f : summaryFields()) {
    if (!j.contains(f.name)) continue;
    const nlohmann::json& v = j[f.name];
    if (f.real) {
      a.*f.real = numberFromJson(v);
    } else if (f.integer && v.is_number()) {
      a.*f.integer = v.get<int64_t>();
    } else if (f.flag && v.is_boolean()) {
      a.*f.flag = v.get<bool>();
    }
  }
  // Before kinks were told apart, every check counted.
  if (!j.contains("grad_equivalence_rel_diff_without_kinks")) {
    a.grad_equivalence_rel_diff_without_kinks = a.grad_equivalence_rel_diff;
  }
  if (!std::isfinite(a.wall_s)) a.wall_s = 0.0;
  return a;
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
  return {
      {"arm", toString(p.arm)},
      {"step", p.step},
      {"samples_seen", p.samples_seen},
      {"micro_batch", p.micro_batch},
      {"accum", p.accum},
      {"repeats", p.repeats},
      {"var_micro", jsonNumber(p.var_micro)},
      {"var_window", jsonNumber(p.var_window)},
      {"ratio", jsonNumber(p.ratio)},
      {"ci_low", jsonNumber(p.ci_low)},
      {"ci_high", jsonNumber(p.ci_high)},
      {"theory", jsonNumber(p.theory)},
      {"batch_dependent", p.batch_dependent},
      {"pool", p.pool},
      {"histogram", histogramToJson(p.histogram)},
      {"probes", probes},
  };
}

nlohmann::json varianceProbeToJson(const ProbeRecord& latest, const PooledProbe& pooled,
                                   int64_t probes) {
  nlohmann::json latest_json = probeToJson(latest, probes);
  latest_json.erase("probes");
  return {
      {"arm", toString(latest.arm)},
      {"micro_batch", pooled.micro_batch},
      {"accum", pooled.accum},
      {"ratio", jsonNumber(pooled.ratio)},
      {"ci_low", jsonNumber(pooled.ci_low)},
      {"ci_high", jsonNumber(pooled.ci_high)},
      {"theory", jsonNumber(pooled.theory)},
      {"batch_dependent", pooled.batch_dependent},
      {"probes", probes},
      {"pooled", pooled.probes},
      {"method", "weighted mean of log-ratios"},
      {"latest", std::move(latest_json)},
  };
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
