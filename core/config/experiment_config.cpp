// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/experiment_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>
#include <utility>

#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "config/config_fields.h"
#include "config/json_text.h"

namespace accumlab {
namespace {

using nlohmann::json;

}  // namespace

bool isTextData(const std::string& spec) {
  return spec == "fortunes" || spec.rfind("text:", 0) == 0;
}

bool probesVariance(const ExperimentConfig& c) { return c.probe_repeats >= 2; }

bool isPitfall(ArmKind arm) { return arm >= ArmKind::kPitfallSum; }

std::string pitfallUnmet(ArmKind arm, const ExperimentConfig& c) {
  if (!isPitfall(arm)) return "";
  if (arm == ArmKind::kPitfallClipEach && c.optimizer.clip_norm <= 0) {
    return "it clips each micro-batch's gradient to the clip norm, and the experiment has "
           "none; give one (--clip-norm, or clip_norm in a config file)";
  }
  if (arm == ArmKind::kPitfallSchedulePerMicro && c.optimizer.schedule == LrSchedule::kConstant &&
      c.optimizer.warmup_samples == 0) {
    return "it steps the LR schedule per micro-batch, and the experiment's LR is constant; give "
           "it a schedule (--lr-schedule step or cosine, --warmup-samples, or lr_schedule in a "
           "config file)";
  }
  if (c.workers > 1) return "a pitfall arm trains on one worker; use one worker (--workers 1)";
  return "";
}

bool accumulates(ArmKind arm) { return arm == ArmKind::kAccum || isPitfall(arm); }

const std::vector<ArmKind>& pitfallArms() {
  static const std::vector<ArmKind> arms = [] {
    std::vector<ArmKind> all;
    for (const auto& [arm, name] : kNames<ArmKind>.entries()) {
      if (isPitfall(arm)) all.push_back(arm);
    }
    return all;
  }();
  return arms;
}

int64_t armMicroBatch(ArmKind arm, int64_t m, int64_t k) {
  return arm == ArmKind::kBigBatch ? m * k : m;
}

int64_t armAccum(ArmKind arm, int64_t m, int64_t k) { return accumulates(arm) ? k : 1; }

namespace {

// True when the JSON number `v` is a whole number that T holds; then stores it in `out`.
// nlohmann converts numbers with a plain cast: a float beyond the integer's range is undefined
// behaviour, 2.5 would become 2, and -1 in a uint64_t would become 2^64 - 1.
template <typename T>
bool wholeNumberIn(const json& v, T& out) {
  using Limits = std::numeric_limits<T>;
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(Limits::max())) return false;
    out = static_cast<T>(u);
    return true;
  }
  if (v.is_number_integer()) {  // negative: nlohmann stores non-negative numbers as unsigned
    const auto i = v.get<int64_t>();
    if (!Limits::is_signed || i < static_cast<int64_t>(Limits::min())) return false;
    out = static_cast<T>(i);
    return true;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // [-2^digits, 2^digits) is exactly T's range for two's complement and unsigned types.
    const double end = std::ldexp(1.0, Limits::digits);
    if (!(d == std::floor(d) && d >= (Limits::is_signed ? -end : 0.0) && d < end)) return false;
    out = static_cast<T>(d);
    return true;
  }
  return false;
}

template <typename T>
void read(const json& j, const char* key, T& out, const std::string& source) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (it->is_number() && !wholeNumberIn(*it, out)) {
      throw InputError(source + ": key '" + key + "' must be a whole number from " +
                       std::to_string(std::numeric_limits<T>::min()) + " to " +
                       std::to_string(std::numeric_limits<T>::max()) + ", got " + it->dump());
    }
    if (it->is_number()) return;
  }
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    throw InputError(source + ": key '" + key + "' has the wrong type (" +
                     std::string(it->type_name()) + ")");
  }
}

template <typename T>
json settingToJson(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return toString(v);
  } else if constexpr (std::is_same_v<T, std::vector<ArmKind>>) {
    json arms = json::array();
    for (ArmKind a : v) arms.push_back(toString(a));
    return arms;
  } else if constexpr (std::is_same_v<T, OptimizerConfig>) {
    json o = json::object();
    forEachOptimizerField([&](const char* key, const auto& m) { o[key] = settingToJson(m); }, v);
    return o;
  } else {
    return json(v);
  }
}

/// Reads the setting `key` of `j` into `out`; a missing key keeps the default.
template <typename T>
void readSetting(const json& j, const char* key, T& out, const std::string& source) {
  if constexpr (std::is_enum_v<T>) {
    std::string name;
    read(j, key, name, source);
    if (name.empty()) return;
    try {
      out = kNames<T>.parse(name);
    } catch (const InputError& e) {
      throw InputError(source + ": " + e.what());
    }
  } else if constexpr (std::is_same_v<T, std::vector<ArmKind>>) {
    if (!j.contains(key)) return;
    std::vector<std::string> names;
    read(j, key, names, source);
    out.clear();
    for (const auto& n : names) {
      try {
        out.push_back(parseArmKind(n));
      } catch (const InputError& e) {
        throw InputError(source + ": " + e.what());
      }
    }
  } else if constexpr (std::is_same_v<T, OptimizerConfig>) {
    if (!j.contains(key)) return;
    const json& o = j[key];
    if (!o.is_object()) throw InputError(source + ": key '" + key + "' must be an object");
    forEachOptimizerField([&](const char* k, auto& m) { readSetting(o, k, m, source); }, out);
  } else {
    read(j, key, out, source);
  }
}

}  // namespace

std::string configToJson(const ExperimentConfig& c, int indent) {
  json j = json::object();
  forEachConfigField([&](const char* key, const auto& m) { j[key] = settingToJson(m); }, c);
  return j.dump(indent);
}

ExperimentConfig configFromJson(const std::string& text, const std::string& source) {
  const json j = parseJsonText(text, source);
  if (!j.is_object()) throw InputError(source + " must hold a JSON object of experiment settings");
  ExperimentConfig c;
  forEachConfigField([&](const char* key, auto& m) { readSetting(j, key, m, source); }, c);
  return c;
}

ExperimentConfig loadConfigFile(const std::string& path) {
  // A config of every option is about 1 KiB; anything near the limit is not one.
  constexpr uint64_t kMaxConfigBytes = uint64_t{16} << 20;
  return configFromJson(readWholeFile(path, {"a config file", kMaxConfigBytes}),
                        "config file " + path);
}

void validateConfig(const ExperimentConfig& c) {
  auto fail = [](const std::string& m) { throw InputError(m); };
  if (c.micro_batch < 1)
    fail("micro-batch size must be at least 1, got " + std::to_string(c.micro_batch));
  if (c.accum < 1) fail("accumulation count K must be at least 1, got " + std::to_string(c.accum));
  if (c.arms.empty()) fail("at least one arm is needed: no-accum, accum or big-batch");
  for (size_t i = 0; i < c.arms.size(); ++i) {
    for (size_t j = i + 1; j < c.arms.size(); ++j) {
      if (c.arms[i] == c.arms[j]) fail("arm '" + toString(c.arms[i]) + "' is listed twice");
    }
  }
  if (!(c.optimizer.lr >= 0)) fail("learning rate must be zero or positive");
  if (!(c.optimizer.momentum >= 0 && c.optimizer.momentum < 1)) fail("momentum must be in [0, 1)");
  if (c.optimizer.nesterov && c.optimizer.momentum <= 0) fail("Nesterov needs a momentum above 0");
  if (!(c.optimizer.weight_decay >= 0)) fail("weight decay must be zero or positive");
  if (!(c.optimizer.clip_norm >= 0)) fail("clip norm must be zero (off) or positive");
  if (c.samples < 0) fail("the sample budget must be positive");
  if (c.samples == 0 && !(c.epochs > 0)) fail("the budget needs epochs > 0 or samples > 0");
  if (!(c.val_fraction >= 0 && c.val_fraction < 1)) fail("validation fraction must be in [0, 1)");
  if (c.max_len < 1 || c.max_len > kMaxTextLength) {
    fail("the text length limit must be between 1 and " + std::to_string(kMaxTextLength) +
         " bytes, got " + std::to_string(c.max_len));
  }
  if (c.eval_every < 0) fail("eval interval must be zero (per epoch) or positive");
  if (c.variance_window < 2) fail("the variance window W must be at least 2 updates");
  if (c.probe_repeats < 0 || c.probe_repeats == 1) {
    fail("the variance probe needs at least 2 repeats (or 0: off)");
  }
  if (c.probe_every < 0) fail("the probe interval must be zero (at each evaluation) or positive");
  if (!(c.noise_ema >= 0 && c.noise_ema < 1)) fail("noise EMA factor must be in [0, 1)");
  if (c.memory_budget < 0) fail("the memory budget must be zero (no limit) or positive");
  if (c.threads < 0) fail("threads must be zero (default) or positive");
  if (c.arm_threads < 0) fail("arm threads must be zero (one per core) or positive");
  if (c.workers < 1 || c.workers > kMaxWorkers) {
    fail("workers must be between 1 and " + std::to_string(kMaxWorkers) + ", got " +
         std::to_string(c.workers));
  }
  if (c.workers > 1 && std::find(c.arms.begin(), c.arms.end(), ArmKind::kAccum) == c.arms.end()) {
    fail("workers train the accum arm data-parallel: add accum to the arms, or use one worker");
  }
  if (c.grad_check_every < 0) fail("the gradient check interval must be zero (off) or positive");
  for (const ArmKind arm : c.arms) {
    if (const std::string why = pitfallUnmet(arm, c); !why.empty()) {
      fail("arm '" + toString(arm) + "' cannot run: " + why);
    }
  }
}

ExperimentConfig defaultExperiment() {
  ExperimentConfig c;
  // The arms at once: on 2 cores the Fashion-MNIST demo takes 14.5 s this way against 25.2 s
  // one after another, with the same numbers (docs/performance.md).
  c.arm_threads = 0;
  std::error_code ec;
  if (std::filesystem::is_directory(kFashionMnistDir, ec)) {
    // No-accum's 8-sample updates with momentum 0.9 often blow up on Fashion-MNIST at 0.05;
    // 0.02 keeps all three arms learning (stated here even if the built-in LR changes).
    constexpr double kFashionMnistLr = 0.02;
    constexpr int64_t kFashionMnistEvalEvery = 10'000;
    // Enough for every read-out to settle (about 15 s on two cores; Space pauses it to talk
    // it over in front of a class).
    constexpr double kFashionMnistEpochs = 5;
    c.data = "fashion-mnist";
    c.optimizer.lr = kFashionMnistLr;
    c.eval_every = kFashionMnistEvalEvery;
    c.epochs = kFashionMnistEpochs;
    c.samples = 0;
  }
  return c;
}

namespace {

// The text demo (docs/sequences.md): lines of very different lengths, where only token-level
// normalisation makes accumulation equal the big batch.
ExperimentConfig fortunesExperiment() {
  ExperimentConfig c;
  c.name = "fortunes";
  c.data = "fortunes";
  c.model = "charlm";
  // With SGD at the built-in LR accum's validation loss was still 4.71 nats per byte after
  // 1,600 quotes; Adam at 3e-3 takes it to 2.47 in the epoch (docs/sequences.md).
  c.optimizer.kind = OptimizerKind::kAdam;
  c.optimizer.lr = 3e-3;
  c.epochs = 1;
  c.eval_every = 2000;
  // The arms at once, as in the default experiment: 111 s for the epoch on 2 cores against
  // 178 s one after another (docs/sequences.md).
  c.arm_threads = 0;
  return c;
}

}  // namespace

ExperimentConfig presetExperiment(const std::string& name) {
  if (name == "default") return defaultExperiment();
  if (name == "fortunes") return fortunesExperiment();
  throw InputError("unknown preset '" + name + "'; the presets are: default, fortunes");
}

}  // namespace accumlab
