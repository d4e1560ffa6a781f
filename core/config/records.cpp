#include "accumlab/records.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "accumlab/input_error.h"
#include "accumlab/variance_ratio.h"
#include "store/summary_json.h"

namespace accumlab {
namespace {

const char* const kStatusNames[] = {"running", "finished", "stopped",
                                    "diverged", "failed", "interrupted"};

}  // namespace

std::string toString(ArmStatus v) { return kStatusNames[static_cast<int>(v)]; }

ArmStatus parseArmStatus(const std::string& s) {
  for (int i = 0; i < 6; ++i) {
    if (s == kStatusNames[i]) return static_cast<ArmStatus>(i);
  }
  throw InputError("run status '" + s + "' is not known");
}

std::string armSizesText(const ArmSummary& a, const std::string& x) {
  std::string text = std::to_string(a.micro_batch) + x + std::to_string(a.accum);
  if (a.memory_piece <= 0 || a.memory_piece >= a.micro_batch) return text;
  const int64_t per_batch = (a.micro_batch + a.memory_piece - 1) / a.memory_piece;
  const bool even = a.micro_batch % a.memory_piece == 0;
  return text + " (as " + (even ? "" : "≤") + std::to_string(a.memory_piece) + x +
         std::to_string(per_batch * a.accum) + ")";
}

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
      {"variance_probe", summary.variance_probe
                             ? store::probeToJson(*summary.variance_probe, summary.variance_probes)
                             : json()},
      {"variance_ratio", json()},
  };
  if (const auto r = armVarianceRatio(summary.arms)) {
    j["variance_ratio"] = {{"ratio", store::jsonNumber(r->ci.ratio)},
                           {"ci_low", store::jsonNumber(r->ci.low)},
                           {"ci_high", store::jsonNumber(r->ci.high)},
                           {"theory", r->theory},
                           {"updates", r->updates},
                           {"detrended", true}};
  }
  return j.dump(indent);
}

}  // namespace accumlab
