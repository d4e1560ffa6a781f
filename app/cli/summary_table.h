// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "accumlab/format_bytes.h"
#include "accumlab/records.h"

namespace accumlab::cli {

/// The end-of-run table, one row per arm, as plain aligned text.
std::string formatSummaryTable(const RunSummary& summary);
/// The line "same weights (…): pooled ratio [90% interval] · theory K · latest …" of a run's
/// fixed-weight probes: `pooled` over them, `latest` the last of the `probes` made.
std::string probeLine(const ProbeRecord& latest, const PooledProbe& pooled, int64_t probes);

}  // namespace accumlab::cli
