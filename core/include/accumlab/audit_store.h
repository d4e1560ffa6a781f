// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

#include "accumlab/audit_file.h"
#include "accumlab/audit_verdict.h"

namespace accumlab {

/// The names the two runs of a stored audit carry (`list`, `show`, `compare` and the app's
/// Runs tab print them).
inline constexpr char kAuditReferenceName[] = "reference (exact big batch)";
inline constexpr char kAuditLoopName[] = "your loop";

/// Where an audit was stored.
struct StoredAudit {
  int64_t experiment_id = 0;
  int64_t reference_run = 0;  ///< arm big-batch: the exact big batch, its gradient norm
  int64_t loop_run = 0;       ///< arm accum: the user's loop, its difference as gradient check
};

/// Stores an audit in the store file `db` as an experiment of two runs with a step per
/// update (docs/audit.md, "On the command line and in the store"), both tagged `audit` and
/// `verdict:NAME`, the verdict's sentence as the loop's note. Throws InputError when the store
/// cannot be opened or written. Call it only after the file was read and judged whole, so
/// that a bad file leaves the store untouched.
StoredAudit storeAudit(const std::string& db, const AuditFile& file, const AuditVerdict& verdict);

}  // namespace accumlab
