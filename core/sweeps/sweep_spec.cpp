// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/sweep_spec.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "accumlab/input_error.h"
#include "sweeps/json_number.h"

namespace accumlab {

namespace {

using nlohmann::json;

constexpr char kLossKind[] = "loss";
constexpr char kValAccuracyKind[] = "val_accuracy";

json targetJson(const SweepTarget& t) {
  // A target that is not a number (a spec stored by hand without one) is null, as before.
  return {{"kind", t.kind == SweepTarget::Kind::kLoss ? kLossKind : kValAccuracyKind},
          {"value", std::isfinite(t.value) ? json(t.value) : json()},
          {"smoothing", t.smoothing}};
}

SweepTarget targetFrom(const json& spec) {
  SweepTarget t;
  const auto it = spec.find("target");
  if (it == spec.end() || !it->is_object()) return t;
  const json& j = *it;
  const auto kind = j.find("kind");
  if (kind != j.end() && kind->is_string() && kind->get<std::string>() == kValAccuracyKind) {
    t.kind = SweepTarget::Kind::kValAccuracy;
  }
  t.value = numberOr(j, "value", kNaN);
  t.smoothing = numberOr(j, "smoothing", t.smoothing);
  return t;
}

}  // namespace

std::string describeTarget(const SweepTarget& t) {
  char value[32];
  std::snprintf(value, sizeof value, "%g", t.value);
  return t.kind == SweepTarget::Kind::kLoss ? std::string("smoothed training loss ≤ ") + value
                                            : std::string("validation accuracy ≥ ") + value;
}

std::string sweepTargetToJson(const SweepTarget& target) { return targetJson(target).dump(); }

std::string sweepSpecToJson(const SweepSpec& spec) {
  json j = json::object();
  if (spec.config) j["config"] = json::parse(configToJson(*spec.config));
  j["target"] = targetJson(spec.target);
  j["jobs"] = spec.jobs;
  if (!spec.lesson.empty()) j["lesson"] = spec.lesson;
  if (!spec.origin.empty()) j["origin"] = spec.origin;
  return j.dump();
}

SweepSpec sweepSpecFromJson(const std::string& text, const std::string& source) {
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) throw InputError(source + " is not a JSON object");
  SweepSpec spec;
  if (const auto it = j.find("config"); it != j.end() && it->is_object()) {
    spec.config = configFromJson(it->dump(), source + "'s config");
  }
  spec.target = targetFrom(j);
  if (const auto it = j.find("jobs"); it != j.end() && it->is_number_integer()) {
    spec.jobs = it->get<int>();
  }
  if (const auto it = j.find("origin"); it != j.end() && it->is_string()) {
    spec.origin = it->get<std::string>();
  }
  if (const auto it = j.find("lesson"); it != j.end() && it->is_string()) {
    spec.lesson = it->get<std::string>();
  }
  return spec;
}

SweepTarget sweepTargetFromSpec(const std::string& spec_json) {
  const json j = json::parse(spec_json, nullptr, false);
  return j.is_object() ? targetFrom(j) : SweepTarget{};
}

ArmKind sweepArmFromSpec(const std::string& spec_json) {
  const json j = json::parse(spec_json, nullptr, false);
  if (!j.is_object() || !j.contains("config") || !j["config"].is_object()) return ArmKind::kAccum;
  const json& arms = j["config"].value("arms", json::array());
  if (!arms.is_array() || arms.size() != 1 || !arms[0].is_string()) return ArmKind::kAccum;
  try {
    return parseArmKind(arms[0].get<std::string>());
  } catch (const InputError&) {
    return ArmKind::kAccum;
  }
}

}  // namespace accumlab
