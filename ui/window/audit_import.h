// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "accumlab/audit_verdict.h"

class QWidget;

namespace accumlab::ui {

/// An audit of a user's own loop stored in the app's store, and its verdict.
struct ImportedAudit {
  std::vector<int64_t> run_ids;  ///< the reference and "your loop"
  AuditVerdict verdict;
};

/// File → Import audit…: reads and judges the audit file `path` (python/accumlab writes it)
/// and stores it in the store file `db` as the CLI's `audit --db` does (docs/audit.md). Throws
/// InputError with one sentence naming the file, before the store is touched, when the file
/// is bad or is the store itself. GUI thread.
ImportedAudit importAudit(const QString& path, const QString& db);

/// The verdict card's text (rich text): the verdict's name, its sentence and its note.
QString verdictCardText(const AuditVerdict& verdict);

/// Shows the verdict card over `parent`, not modal, so that the runs it opened stay in use.
void showVerdictCard(QWidget* parent, const AuditVerdict& verdict);

}  // namespace accumlab::ui
