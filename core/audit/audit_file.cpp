// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/audit_file.h"

#include <nlohmann/json.hpp>

#include <set>

#include "accumlab/input_error.h"
#include "accumlab/input_file.h"

namespace accumlab {
namespace {

/// An audit of a long run is one line per window of a few hundred bytes: 1 GiB is millions.
constexpr uint64_t kMaxAuditBytes = uint64_t{1} << 30;
/// The names a window's match list may hold (python/accumlab/_window.py).
const std::set<std::string> kAuditMatchNames = {
    "exact", "sum", "last-only", "double-last", "mean-of-means", "no-zero", "clip-each"};

double auditNumber(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}

std::string auditText(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

template <typename T>
std::vector<T> auditNumbers(const nlohmann::json& j, const char* key) {
  std::vector<T> out;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) out.push_back(v.is_number() ? v.get<T>() : T(kNaN));
  return out;
}

AuditWindow auditWindowOf(const nlohmann::json& j, const std::string& path, size_t line) {
  const auto bad = [&] {
    return InputError(path + ": line " + std::to_string(line) +
                      " is not a window record (window, audited, counts, and for an audited "
                      "window rel_diff and match)");
  };
  if (!j.contains("window") || !j["window"].is_number_integer() || !j.contains("audited") ||
      !j["audited"].is_boolean() || !j.contains("counts") || !j["counts"].is_array()) {
    throw bad();
  }
  AuditWindow w;
  w.window = j["window"].get<int64_t>();
  w.audited = j["audited"].get<bool>();
  w.irregular = auditText(j, "irregular");
  w.rows = auditNumbers<int64_t>(j, "rows");
  w.counts = auditNumbers<double>(j, "counts");
  w.unit = auditText(j, "unit");
  w.lrs = auditNumbers<double>(j, "lrs");
  w.lr = auditNumber(j, "lr");
  w.loss = auditNumber(j, "loss");
  if (!w.audited) return w;
  if (!j.contains("match") || !j["match"].is_array() || !j.contains("rel_diff") ||
      !j["rel_diff"].is_number()) {
    throw bad();
  }
  for (const auto& m : j["match"]) {
    if (!m.is_string() || kAuditMatchNames.count(m.get<std::string>()) == 0) throw bad();
    w.match.push_back(m.get<std::string>());
  }
  w.ref_norm = auditNumber(j, "ref_norm");
  w.loop_norm = auditNumber(j, "loop_norm");
  w.rel_diff = auditNumber(j, "rel_diff");
  w.scale = auditNumber(j, "scale");
  w.cosine = auditNumber(j, "cosine");
  if (j.contains("recipes") && j["recipes"].is_object()) {
    for (const auto& [name, v] : j["recipes"].items()) {
      w.recipes.emplace_back(name, v.is_number() ? v.get<double>() : kNaN);
    }
  }
  return w;
}

}  // namespace

AuditFile readAuditFile(const std::string& path) {
  const std::string all = readWholeFile(path, {"an audit file", kMaxAuditBytes});
  if (!all.empty() && all.back() != '\n') {
    throw InputError(path + " is truncated: its last line is incomplete");
  }
  std::vector<nlohmann::json> lines;
  size_t start = 0;
  while (start < all.size()) {
    const size_t end = all.find('\n', start);
    nlohmann::json j =
        nlohmann::json::parse(all.begin() + static_cast<std::ptrdiff_t>(start),
                              all.begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      throw InputError(path + ": line " + std::to_string(lines.size() + 1) +
                       " is not a JSON object; an audit file is JSON lines");
    }
    lines.push_back(std::move(j));
    start = end + 1;
  }
  if (lines.empty() || auditText(lines.front(), "format") != kAuditFormat) {
    throw InputError(path + " is not an audit file: its first line does not name the format " +
                     kAuditFormat);
  }
  const nlohmann::json& h = lines.front();
  if (!h.contains("version") || !h["version"].is_number_integer() ||
      h["version"].get<int64_t>() != kAuditVersion) {
    throw InputError(path + " is an audit file of version " +
                     (h.contains("version") ? h["version"].dump() : std::string("(none)")) +
                     "; this AccumLab reads version " + std::to_string(kAuditVersion));
  }
  if (lines.size() < 2 || !lines.back().contains("end")) {
    throw InputError(path + " is truncated: it has no end line (the watched loop did not finish)");
  }
  AuditFile f;
  f.path = path;
  f.torch = auditText(h, "torch");
  f.dtype = auditText(h, "dtype");
  f.model = auditText(h, "model");
  f.parameters = h.value("parameters", nlohmann::json(0)).is_number_integer()
                     ? h["parameters"].get<int64_t>()
                     : 0;
  f.loss = auditText(h, "loss");
  f.optimizer = auditText(h, "optimizer");
  f.every = h.contains("every") && h["every"].is_number_integer() ? h["every"].get<int64_t>() : 1;
  if (h.contains("batch_dependent") && h["batch_dependent"].is_array()) {
    for (const auto& b : h["batch_dependent"]) {
      if (b.is_string()) f.batch_dependent.push_back(b.get<std::string>());
    }
  }
  f.stochastic =
      h.contains("stochastic") && h["stochastic"].is_boolean() && h["stochastic"].get<bool>();
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    f.windows.push_back(auditWindowOf(lines[i], path, i + 1));
  }
  return f;
}

}  // namespace accumlab
