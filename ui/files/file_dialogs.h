// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFileDialog>
#include <QString>

class QWidget;

namespace accumlab::ui {

/// The app's file dialogs: every one of them is opened through these functions. They work as
/// QFileDialog's static functions do, with one difference: the dialog never opens a file to
/// learn its type or icon (names only), so listing the run store's folder leaves the store's
/// files to SQLite (ARCHITECTURE.md, "The store"). The dialog is Qt's own, so what is tested
/// is what runs. A dialog given no folder (or a bare file name) opens where the last one's
/// choice was, in this session or an earlier one. GUI thread; each blocks in its own event loop
/// until the user decides.
namespace file_dialogs {

/// The file to save to, or an empty string when the user cancels. `suggested` is a file name
/// or path to start from.
QString saveFile(QWidget* parent, const QString& caption, const QString& suggested,
                 const QString& filter, QFileDialog::Options options = {});
/// An existing file to open, or an empty string when the user cancels.
QString openFile(QWidget* parent, const QString& caption, const QString& folder,
                 const QString& filter);
/// An existing folder, or an empty string when the user cancels.
QString folder(QWidget* parent, const QString& caption, const QString& start = QString());

}  // namespace file_dialogs
}  // namespace accumlab::ui
