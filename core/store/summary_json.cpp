#include "store/summary_json.h"

#include "accumlab/variance_ratio.h"

namespace accumlab::store {

nlohmann::json armSummaryToJson(const ArmSummary& a) {
  using nlohmann::json;
  return {
      {"arm", toString(a.arm)},
      {"status", toString(a.status)},
      {"message", a.message},
      {"micro_batch", a.micro_batch},
      {"accum", a.accum},
      {"memory_piece", a.memory_piece},
      {"steps", a.steps},
      {"samples_seen", a.samples_seen},
      {"final_train_loss", jsonNumber(a.final_train_loss)},
      {"val_loss", jsonNumber(a.val_loss)},
      {"val_accuracy", jsonNumber(a.val_accuracy)},
      {"loss_variance", jsonNumber(a.loss_variance)},
      {"loss_variance_detrended", jsonNumber(a.loss_variance_detrended)},
      {"loss_variance_count", a.loss_variance_count},
      {"noise_per_update", jsonNumber(a.noise_per_update)},
      {"b_simple", jsonNumber(a.b_simple)},
      {"samples_per_s", jsonNumber(a.samples_per_s)},
      {"peak_memory_bytes", a.peak_memory_bytes},
      {"peak_tensor_bytes", a.peak_tensor_bytes < 0 ? json() : json(a.peak_tensor_bytes)},
      {"equivalence_rel_diff", jsonNumber(a.equivalence_rel_diff)},
      {"trajectories_parted_at_step", a.trajectories_parted_at_step},
      {"grad_equivalence_rel_diff", jsonNumber(a.grad_equivalence_rel_diff)},
      {"grad_equivalence_checks", a.grad_equivalence_checks},
      {"grad_equivalence_kinks", a.grad_equivalence_kinks},
      {"grad_equivalence_largest_kink", jsonNumber(a.grad_equivalence_largest_kink)},
      {"grad_equivalence_rel_diff_without_kinks",
       jsonNumber(a.grad_equivalence_rel_diff_without_kinks)},
      {"diverged_at_step", a.diverged_at_step < 0 ? json() : json(a.diverged_at_step)},
      {"wall_s", a.wall_s},
      {"batch_dependent", a.batch_dependent},
      {"stochastic", a.stochastic},
      {"weights_digest", a.weights_digest},
      {"allreduce_s", jsonNumber(a.allreduce_s)},
  };
}

ArmSummary armSummaryFromJson(const nlohmann::json& j) {
  ArmSummary a;
  if (!j.is_object()) return a;
  auto integer = [&](const char* key, int64_t fallback) {
    return j.contains(key) && j[key].is_number() ? j[key].get<int64_t>() : fallback;
  };
  auto real = [&](const char* key) { return j.contains(key) ? numberFromJson(j[key]) : kNaN; };
  if (j.contains("arm") && j["arm"].is_string()) a.arm = parseArmKind(j["arm"].get<std::string>());
  if (j.contains("weights_digest") && j["weights_digest"].is_string()) {
    a.weights_digest = j["weights_digest"].get<std::string>();
  }
  if (j.contains("status") && j["status"].is_string()) {
    a.status = parseArmStatus(j["status"].get<std::string>());
  }
  if (j.contains("message") && j["message"].is_string()) a.message = j["message"];
  a.micro_batch = integer("micro_batch", 0);
  a.accum = integer("accum", 0);
  a.memory_piece = integer("memory_piece", 0);
  a.steps = integer("steps", 0);
  a.samples_seen = integer("samples_seen", 0);
  a.final_train_loss = real("final_train_loss");
  a.val_loss = real("val_loss");
  a.val_accuracy = real("val_accuracy");
  a.loss_variance = real("loss_variance");
  a.loss_variance_detrended = real("loss_variance_detrended");
  a.loss_variance_count = integer("loss_variance_count", 0);
  a.noise_per_update = real("noise_per_update");
  a.b_simple = real("b_simple");
  a.samples_per_s = real("samples_per_s");
  a.allreduce_s = real("allreduce_s");
  a.peak_memory_bytes = integer("peak_memory_bytes", 0);
  a.peak_tensor_bytes = integer("peak_tensor_bytes", -1);
  a.equivalence_rel_diff = real("equivalence_rel_diff");
  a.trajectories_parted_at_step = integer("trajectories_parted_at_step", -1);
  a.grad_equivalence_rel_diff = real("grad_equivalence_rel_diff");
  a.grad_equivalence_checks = integer("grad_equivalence_checks", 0);
  a.grad_equivalence_kinks = integer("grad_equivalence_kinks", 0);
  a.grad_equivalence_largest_kink = real("grad_equivalence_largest_kink");
  // Before kinks were told apart, every check counted.
  a.grad_equivalence_rel_diff_without_kinks =
      j.contains("grad_equivalence_rel_diff_without_kinks")
          ? real("grad_equivalence_rel_diff_without_kinks")
          : a.grad_equivalence_rel_diff;
  a.diverged_at_step = integer("diverged_at_step", -1);
  const double wall = real("wall_s");
  a.wall_s = std::isfinite(wall) ? wall : 0.0;
  auto flag = [&](const char* key) { return j.contains(key) && j[key].is_boolean() && j[key].get<bool>(); };
  a.batch_dependent = flag("batch_dependent");
  a.stochastic = flag("stochastic");
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
