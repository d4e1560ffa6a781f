#pragma once

#include <string>

#include "accumlab/records.h"

namespace accumlab::cli {

/// The end-of-run table, one row per arm, as plain aligned text.
std::string formatSummaryTable(const RunSummary& summary);
/// Formats a byte count as "12.3 MiB".
std::string formatBytes(int64_t bytes);

}  // namespace accumlab::cli
