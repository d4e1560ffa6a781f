// SPDX-License-Identifier: GPL-3.0-or-later
#include "files/file_dialogs.h"

#include <QDir>
#include <QFileIconProvider>
#include <QFileInfo>
#include <QMimeDatabase>
#include <QSettings>

namespace accumlab::ui::file_dialogs {

namespace {

/// Icons and type names from a file's name alone. Qt's own provider asks QMimeDatabase for
/// the type of every listed file, which opens and reads the files whose names say nothing
/// (runs.sqlite-wal, runs.sqlite-shm); closing that descriptor would drop every lock this
/// process holds on the file. The store's locks survive that (store/store_file.cpp), but no
/// code of ours should need them to.
class NameOnlyIconProvider : public QFileIconProvider {
 public:
  QIcon icon(IconType type) const override { return QFileIconProvider::icon(type); }
  QIcon icon(const QFileInfo& info) const override {
    if (info.isDir()) return QFileIconProvider::icon(QFileIconProvider::Folder);
    const QMimeType mime = mimeOf(info);
    const QIcon themed =
        QIcon::fromTheme(mime.iconName(), QIcon::fromTheme(mime.genericIconName()));
    return themed.isNull() ? QFileIconProvider::icon(QFileIconProvider::File) : themed;
  }
  QString type(const QFileInfo& info) const override {
    if (info.isDir()) return QFileIconProvider::type(info);  // "Folder", from the name
    const QMimeType mime = mimeOf(info);
    return mime.comment().isEmpty() ? mime.name() : mime.comment();
  }

 private:
  QMimeType mimeOf(const QFileInfo& info) const {
    return mime_.mimeTypeForFile(info.fileName(), QMimeDatabase::MatchExtension);
  }
  QMimeDatabase mime_;
};

QFileIconProvider* nameOnlyIcons() {
  static NameOnlyIconProvider provider;
  return &provider;
}

/// Where the last dialog's choice was, kept across sessions.
constexpr char kLastFolderKey[] = "files/lastFolder";

/// Where a dialog opens: `start` when it names a folder or a path, else the folder of the
/// last choice (a bare file name is suggested in that folder).
QString startAt(const QString& start) {
  const QString last = QSettings().value(kLastFolderKey).toString();
  if (last.isEmpty() || !QFileInfo(last).isDir()) return start;
  if (start.isEmpty()) return last;
  if (QFileInfo(start).isRelative() && !start.contains('/')) return QDir(last).filePath(start);
  return start;
}

QString ask(QWidget* parent, const QString& caption, const QString& start, const QString& filter,
            QFileDialog::FileMode mode, QFileDialog::AcceptMode accept,
            QFileDialog::Options options) {
  // `start` may name a file: the dialog opens in its folder with the file selected.
  QFileDialog dialog(parent, caption, startAt(start), filter);
  dialog.setOptions(options | QFileDialog::DontUseNativeDialog);
  dialog.setIconProvider(nameOnlyIcons());
  dialog.setFileMode(mode);
  dialog.setAcceptMode(accept);
  if (dialog.exec() != QDialog::Accepted) return QString();
  const QStringList chosen = dialog.selectedFiles();
  if (chosen.isEmpty()) return QString();
  const QFileInfo info(chosen.front());
  QSettings().setValue(kLastFolderKey, mode == QFileDialog::Directory ? info.absoluteFilePath()
                                                                      : info.absolutePath());
  return chosen.front();
}

}  // namespace

QString saveFile(QWidget* parent, const QString& caption, const QString& suggested,
                 const QString& filter, QFileDialog::Options options) {
  return ask(parent, caption, suggested, filter, QFileDialog::AnyFile, QFileDialog::AcceptSave,
             options);
}

QString openFile(QWidget* parent, const QString& caption, const QString& folder,
                 const QString& filter) {
  return ask(parent, caption, folder, filter, QFileDialog::ExistingFile, QFileDialog::AcceptOpen,
             {});
}

QString folder(QWidget* parent, const QString& caption, const QString& start) {
  return ask(parent, caption, start, QString(), QFileDialog::Directory, QFileDialog::AcceptOpen,
             QFileDialog::ShowDirsOnly);
}

}  // namespace accumlab::ui::file_dialogs
