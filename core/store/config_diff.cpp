// SPDX-License-Identifier: GPL-3.0-or-later
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "accumlab/input_error.h"
#include "accumlab/run_store.h"

namespace accumlab {

namespace {

/// Flattens nested objects into dotted keys; arrays and scalars are leaves.
void flatten(const nlohmann::json& j, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [key, value] : j.items()) {
      flatten(value, prefix.empty() ? key : prefix + "." + key, out);
    }
  } else {
    out[prefix] = j.dump();
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flattenConfig(const std::string& config_json) {
  std::map<std::string, std::string> flat;
  flatten(nlohmann::json::parse(config_json, nullptr, false), "", flat);
  return {flat.begin(), flat.end()};
}

std::vector<ConfigDifference> diffConfigs(const std::vector<std::string>& config_jsons) {
  std::vector<std::map<std::string, std::string>> flat(config_jsons.size());
  std::set<std::string> keys;
  for (size_t i = 0; i < config_jsons.size(); ++i) {
    flatten(nlohmann::json::parse(config_jsons[i], nullptr, false), "", flat[i]);
    for (const auto& kv : flat[i]) keys.insert(kv.first);
  }
  std::vector<ConfigDifference> diffs;
  for (const std::string& key : keys) {
    ConfigDifference d{key, {}};
    for (const auto& f : flat) {
      const auto it = f.find(key);
      d.values.push_back(it == f.end() ? "—" : it->second);
    }
    bool same = true;
    for (const auto& v : d.values) same = same && v == d.values.front();
    if (!same) diffs.push_back(std::move(d));
  }
  return diffs;
}

}  // namespace accumlab
