// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

#include "accumlab/audit_file.h"
#include "accumlab/records.h"

namespace accumlab {

/// The verdict on an audited loop (docs/audit.md, "Verdicts"): the same rule and words as
/// python/accumlab/judge.py (the CLI and the app judge alike).
struct AuditVerdict {
  /// exact, a pitfall arm's name (sum, last-only, double-last, mean-of-means, no-zero,
  /// clip-each, schedule-per-micro), batch-dependent or unknown.
  std::string verdict;
  std::string accumulation;  ///< the verdict on the accumulation alone (no batch-dependent)
  std::string sentence;      ///< the verdict in one sentence
  std::string note;          ///< recipes these windows could not tell apart, and what would
  int64_t windows = 0;
  int64_t audited = 0;
  double largest_rel_diff = kNaN;  ///< the largest |U − R| / |R| over audited windows
  double scale = kNaN;             ///< medians over audited windows
  double cosine = kNaN;
  double rel_diff = kNaN;
};

/// Judges the windows of `file`: a recipe is a candidate when it matched, within rounding,
/// every audited window that could predict it.
AuditVerdict judgeAudit(const AuditFile& file);

}  // namespace accumlab
