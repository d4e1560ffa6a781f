// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/audit_import.h"

#include <QMessageBox>

#include "accumlab/audit_file.h"
#include "accumlab/audit_store.h"
#include "accumlab/input_error.h"
#include "accumlab/run_store.h"

namespace accumlab::ui {

ImportedAudit importAudit(const QString& path, const QString& db) {
  const std::string file = path.toStdString();
  // Only SQLite opens the store's files (docs/store.md): never read one as an audit.
  if (RunStore::wouldOverwrite(db.toStdString(), file)) {
    throw InputError(file + " is the run store (or a journal of it), not an audit file");
  }
  const AuditFile audit = readAuditFile(file);
  ImportedAudit out;
  out.verdict = judgeAudit(audit);
  const StoredAudit stored = storeAudit(db.toStdString(), audit, out.verdict);
  out.run_ids = {stored.reference_run, stored.loop_run};
  return out;
}

QString verdictCardText(const AuditVerdict& v) {
  QString text = QObject::tr("<h3>Your loop: %1</h3><p>%2</p>")
                     .arg(QString::fromStdString(v.verdict).toHtmlEscaped(),
                          QString::fromStdString(v.sentence).toHtmlEscaped());
  if (!v.note.empty()) {
    text += QStringLiteral("<p>%1</p>").arg(QString::fromStdString(v.note).toHtmlEscaped());
  }
  return text + QObject::tr(
                    "<p>The runs \"your loop\" and its reference are open: the gradient "
                    "check pane shows the loop against the exact big batch, update by "
                    "update.</p>");
}

void showVerdictCard(QWidget* parent, const AuditVerdict& verdict) {
  auto* card = new QMessageBox(
      verdict.verdict == "exact" ? QMessageBox::Information : QMessageBox::Warning,
      QObject::tr("Audit of your loop"), verdictCardText(verdict), QMessageBox::Ok, parent);
  card->setObjectName("auditVerdictCard");
  card->setTextFormat(Qt::RichText);
  card->setAttribute(Qt::WA_DeleteOnClose);
  card->setModal(false);
  card->show();
}

}  // namespace accumlab::ui
