#include "accumlab/records.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

const char* const kStatusNames[] = {"running", "finished", "stopped",
                                    "diverged", "failed", "interrupted"};

// JSON has no NaN: quantities that do not apply become null.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

}  // namespace

std::string toString(ArmStatus v) { return kStatusNames[static_cast<int>(v)]; }

ArmStatus parseArmStatus(const std::string& s) {
  for (int i = 0; i < 6; ++i) {
    if (s == kStatusNames[i]) return static_cast<ArmStatus>(i);
  }
  throw InputError("run status '" + s + "' is not known");
}

std::string summaryToJson(const RunSummary& summary, int indent) {
  using nlohmann::json;
  const RunInfo& info = summary.info;
  json arms = json::object();
  for (const ArmSummary& a : summary.arms) {
    arms[toString(a.arm)] = {
        {"status", toString(a.status)},
        {"message", a.message},
        {"micro_batch", a.micro_batch},
        {"accum", a.accum},
        {"steps", a.steps},
        {"samples_seen", a.samples_seen},
        {"final_train_loss", number(a.final_train_loss)},
        {"val_loss", number(a.val_loss)},
        {"val_accuracy", number(a.val_accuracy)},
        {"loss_variance", number(a.loss_variance)},
        {"noise_per_update", number(a.noise_per_update)},
        {"b_simple", number(a.b_simple)},
        {"samples_per_s", number(a.samples_per_s)},
        {"peak_memory_bytes", a.peak_memory_bytes},
        {"equivalence_rel_diff", number(a.equivalence_rel_diff)},
        {"diverged_at_step", a.diverged_at_step < 0 ? json() : json(a.diverged_at_step)},
        {"wall_s", a.wall_s},
    };
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
      {"arms", arms},
  };
  return j.dump(indent);
}

}  // namespace accumlab
