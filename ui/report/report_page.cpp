// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/report_page.h"

#include <QObject>
#include <QSaveFile>

namespace accumlab::ui {

namespace {

/// The one stylesheet of the reports: readable tables of numbers, plots as wide as the page.
/// `.miss` and `.best` mark a sweep's points that missed its target or were its best.
const char kStyle[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1180px;"
    "margin:24px auto;padding:0 16px;color:#222}"
    "h1{margin-bottom:0}h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}"
    "td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}"
    "th{background:#f4f4f4}td.k,th.k{text-align:left}"
    ".muted{color:#777;font-size:13px}figure{margin:16px 0}"
    "figure img{max-width:100%;border:1px solid #eee}"
    "figcaption{font-size:13px;color:#444;max-width:900px}"
    ".grid{display:grid;grid-template-columns:1fr 1fr;gap:8px 24px}"
    ".miss{color:#d62728}.best{font-weight:bold}"
    "code,tt{background:#f6f6f6;padding:0 3px}";

}  // namespace

QString reportHead(const QString& title_html) {
  return QString(
             "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
             "<title>%1</title><style>%2</style></head><body>")
      .arg(title_html, kStyle);
}

QString reportFoot() { return "<p class=muted>Made with AccumLab.</p></body></html>\n"; }

QString reportFigures(const std::vector<PlotImage>& plots) {
  QString html;
  for (const PlotImage& p : plots) {
    html += QString(
                "<figure><img alt='%1' src='data:image/png;base64,%2'>"
                "<figcaption><b>%1.</b> %3</figcaption></figure>")
                .arg(p.title.toHtmlEscaped(), QString::fromLatin1(p.png.toBase64()), p.explanation);
  }
  return html;
}

bool writeReportFile(const QString& html, const QString& path, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(html.toUtf8()) < 0 || !file.commit()) {
    *error = QObject::tr("Could not write the report %1 (%2).").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace accumlab::ui
