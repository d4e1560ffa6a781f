// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QTextDocument;

#include <QString>
#include <vector>

class QWidget;

namespace accumlab::ui {

/// A page of the manual (docs/*.md) and the Help menu entry that opens it.
struct ManualPage {
  QString title;  ///< the Help menu's text, with its & mnemonic
  QString file;   ///< e.g. "app.md"
};

/// The pages the Help menu offers, in menu order.
const std::vector<ManualPage>& manualPages();

/// The folder of the manual: $ACCUMLAB_DOCS when set; else an installed AccumLab's
/// share/doc/accumlab, reached from the executable's bin/; else the sources' docs/ (a build
/// tree); else the install prefix's share/doc/accumlab, which may not exist.
QString manualDirectory();

/// The full path of `file` in manualDirectory(), whether or not it exists.
QString manualPagePath(const QString& file);

/// Shows `file` of the manual in the window's manual viewer (one per `parent`, made on first
/// use): the Markdown rendered in the app, links between pages followed, Back and Forward; a
/// link to the web opens in the desktop's browser. When the page is missing, says so in a
/// dialog naming the path and returns false. GUI thread.
bool openManualPage(QWidget* parent, const QString& file);

/// A heading's anchor name as GitHub makes it: lower case, spaces to hyphens, punctuation
/// dropped ("Memory per arm" → "memory-per-arm").
QString headingSlug(const QString& heading);
/// Names each heading of `doc` by its slug, so that a link to page.md#slug finds it.
void nameHeadings(QTextDocument* doc);

}  // namespace accumlab::ui
