// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include "accumlab/records.h"

namespace accumlab::store {

/// One arm's summary as a JSON object (NaN becomes null), the keys of summaryToJson().
nlohmann::json armSummaryToJson(const ArmSummary& summary);
/// The inverse of armSummaryToJson(); missing keys keep their defaults.
ArmSummary armSummaryFromJson(const nlohmann::json& j);

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

}  // namespace accumlab::store
