// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "accumlab/records.h"
#include "accumlab/run_store.h"
#include "records/record_field.h"

namespace accumlab::store {

/// One arm's summary as a JSON object (NaN becomes null), the keys of summaryToJson().
nlohmann::json armSummaryToJson(const ArmSummary& summary);
/// The inverse of armSummaryToJson(); missing keys keep their defaults.
ArmSummary armSummaryFromJson(const nlohmann::json& j);

/// A runs-list row as JSON (NaN is null): what `list --json` prints per run, and what an
/// export begins each run with.
nlohmann::json rowToJson(const RunRow& row);

/// A variance probe as the JSON object `variance_probe` of summaryToJson(), with the count
/// of probes the run made.
nlohmann::json probeToJson(const ProbeRecord& probe, int64_t probes);

/// A probe's histogram as {low, high, micro: [counts], window: [counts]}; null when empty.
nlohmann::json histogramToJson(const ProbeHistogram& histogram);

/// The histogram of histogramToJson's text; empty for empty, null or unreadable text.
ProbeHistogram histogramFromJson(const std::string& text);

/// The summary's `variance_probe`: the pooled estimate of all probes as ratio, ci_low,
/// ci_high and theory, `probes` made and `pooled` of them pooled, and the latest probe
/// alone under `latest`.
nlohmann::json varianceProbeToJson(const ProbeRecord& latest, const PooledProbe& pooled,
                                   int64_t probes);

/// A double as JSON: null for NaN and infinities (JSON has neither).
inline nlohmann::json jsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}
/// The inverse of jsonNumber(): null becomes NaN.
inline double numberFromJson(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : kNaN;
}

/// A field of `r` as JSON: NaN and a negative "not measured" integer are null, a flag is a
/// boolean.
template <typename R>
nlohmann::json fieldToJson(const RecordField<R>& f, const R& r) {
  if (f.real) return jsonNumber(r.*f.real);
  if (f.flag) return r.*f.flag;
  return f.measured(r) ? nlohmann::json(r.*f.integer) : nlohmann::json();
}

/// The fields of `r` as the keys of `j`.
template <typename R>
void fieldsToJson(nlohmann::json& j, const R& r, const std::vector<RecordField<R>>& fields) {
  for (const auto& f : fields) j[f.name] = fieldToJson(f, r);
}

/// The inverse of fieldsToJson(): a missing key, or one of another type, keeps the default.
template <typename R>
void fieldsFromJson(const nlohmann::json& j, R& r, const std::vector<RecordField<R>>& fields) {
  for (const auto& f : fields) {
    const nlohmann::json::const_iterator it = j.find(f.name);
    if (it == j.end()) continue;
    const nlohmann::json& v = *it;
    if (f.real) {
      r.*f.real = numberFromJson(v);
    } else if (f.integer && v.is_number()) {
      r.*f.integer = v.get<int64_t>();
    } else if (f.flag && v.is_boolean()) {
      r.*f.flag = v.get<bool>();
    }
  }
}

}  // namespace accumlab::store
