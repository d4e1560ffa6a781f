// SPDX-License-Identifier: GPL-3.0-or-later
#include "help/manual_pages.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QMessageBox>
#include <QPushButton>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

// Set by ui/CMakeLists.txt: the sources' docs/, the installed folder relative to bin/, and
// the installed folder under the configured prefix.
#ifndef ACCUMLAB_DOC_SOURCE_DIR
#define ACCUMLAB_DOC_SOURCE_DIR "docs"
#endif
#ifndef ACCUMLAB_DOC_FROM_BIN
#define ACCUMLAB_DOC_FROM_BIN "../share/doc/accumlab"
#endif
#ifndef ACCUMLAB_DOC_INSTALLED_DIR
#define ACCUMLAB_DOC_INSTALLED_DIR "/usr/share/doc/accumlab"
#endif

namespace accumlab::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("Manual", text); }

bool holdsManual(const QString& dir) { return QFileInfo(dir + "/index.md").isFile(); }

/// Renders the manual's Markdown. The pages link to ../README.md and show ../resources/*.png,
/// which are where the sources keep them; installed, they lie beside the pages (README.md)
/// and in images/ (resources/CMakeLists.txt), so a local file that is not where a link says
/// is looked for there.
class ManualBrowser : public QTextBrowser {
 public:
  using QTextBrowser::QTextBrowser;

  QVariant loadResource(int type, const QUrl& name) override {
    QUrl url = name;
    if (name.isLocalFile() && !QFileInfo::exists(name.toLocalFile())) {
      const QString file = QFileInfo(name.toLocalFile()).fileName();
      const QString dir = manualDirectory();
      for (const QString& candidate : {dir + "/" + file, dir + "/images/" + file}) {
        if (QFileInfo::exists(candidate)) {
          url = QUrl::fromLocalFile(candidate);
          break;
        }
      }
    }
    const QVariant loaded = QTextBrowser::loadResource(type, url);
    if (type != QTextDocument::ImageResource || !url.isLocalFile()) return loaded;
    // A screenshot is wider than the viewer: shown at the viewer's width, never scrolled.
    QImage image(url.toLocalFile());
    const int width = std::max(200, viewport()->width() - 24);
    if (image.isNull() || image.width() <= width) return loaded;
    return image.scaledToWidth(width, Qt::SmoothTransformation);
  }
};

/// The window's manual: a non-modal dialog that stays open beside the window.
class ManualViewer : public QDialog {
 public:
  explicit ManualViewer(QWidget* parent) : QDialog(parent) {
    setObjectName("manualViewer");
    setWindowTitle(tr("AccumLab manual"));
    browser_ = new ManualBrowser(this);
    browser_->setObjectName("manualBrowser");
    browser_->setOpenLinks(true);
    browser_->setOpenExternalLinks(true);  // http(s): the desktop's browser
    auto* back = new QPushButton(tr("&Back"), this);
    auto* forward = new QPushButton(tr("&Forward"), this);
    auto* contents = new QPushButton(tr("&Contents"), this);
    back->setEnabled(false);
    forward->setEnabled(false);
    connect(back, &QPushButton::clicked, browser_, &QTextBrowser::backward);
    connect(forward, &QPushButton::clicked, browser_, &QTextBrowser::forward);
    connect(browser_, &QTextBrowser::backwardAvailable, back, &QWidget::setEnabled);
    connect(browser_, &QTextBrowser::forwardAvailable, forward, &QWidget::setEnabled);
    connect(contents, &QPushButton::clicked, this,
            [this] { showPage(QStringLiteral("index.md")); });
    connect(browser_, &QTextBrowser::sourceChanged, this, [this](const QUrl& url) {
      // Links into a section (measurements.md#memory-per-arm, the contents' entries) find it:
      // Qt's Markdown reader names no heading, so each gets its slug, as on GitHub.
      nameHeadings(browser_->document());
      if (url.hasFragment()) browser_->scrollToAnchor(url.fragment());
      setWindowTitle(tr("AccumLab manual — %1")
                         .arg(browser_->documentTitle().isEmpty() ? url.fileName()
                                                                  : browser_->documentTitle()));
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
    auto* bar = new QHBoxLayout;
    bar->addWidget(back);
    bar->addWidget(forward);
    bar->addWidget(contents);
    bar->addStretch(1);
    bar->addWidget(buttons);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(browser_, 1);
    layout->addLayout(bar);
    resize(820, 640);
  }

  void showPage(const QString& file) {
    QUrl url = QUrl::fromLocalFile(manualPagePath(file.section('#', 0, 0)));
    if (file.contains('#')) url.setFragment(file.section('#', 1));
    browser_->setSource(url, QTextDocument::MarkdownResource);
    QDialog::show();
    raise();
    activateWindow();
  }

 private:
  QTextBrowser* browser_ = nullptr;
};

}  // namespace

const std::vector<ManualPage>& manualPages() {
  static const std::vector<ManualPage> pages = {
      {tr("&Manual"), "index.md"},
      {tr("The desktop &app"), "app.md"},
      {tr("&Sweeps"), "sweeps.md"},
      {tr("&Lessons, and writing one"), "lessons.md"},
      {tr("What is &measured, and how"), "measurements.md"},
      {tr("Accumulation, e&xactly"), "accumulation.md"},
      {tr("Common mis&takes"), "pitfalls.md"},
      {tr("A&udit your own loop"), "audit.md"},
      {tr("The &command line"), "cli.md"},
  };
  return pages;
}

QString manualDirectory() {
  const QString env = qEnvironmentVariable("ACCUMLAB_DOCS");
  if (!env.isEmpty()) return env;
  const QString installed =
      QDir::cleanPath(QCoreApplication::applicationDirPath() + "/" + ACCUMLAB_DOC_FROM_BIN);
  if (holdsManual(installed)) return installed;
  if (holdsManual(ACCUMLAB_DOC_SOURCE_DIR)) return QStringLiteral(ACCUMLAB_DOC_SOURCE_DIR);
  return QStringLiteral(ACCUMLAB_DOC_INSTALLED_DIR);
}

QString manualPagePath(const QString& file) { return manualDirectory() + "/" + file; }

QString headingSlug(const QString& heading) {
  QString slug;
  for (const QChar c : heading.toLower()) {
    if (c.isLetterOrNumber() || c == '-' || c == '_') {
      slug += c;
    } else if (c == ' ') {
      slug += '-';
    }
  }
  return slug;
}

void nameHeadings(QTextDocument* doc) {
  for (QTextBlock block = doc->begin(); block.isValid(); block = block.next()) {
    if (block.blockFormat().headingLevel() == 0 || block.text().isEmpty()) continue;
    QTextCursor cursor(block);
    cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    QTextCharFormat named;
    named.setAnchor(true);
    named.setAnchorNames({headingSlug(block.text())});
    cursor.mergeCharFormat(named);
  }
}

bool openManualPage(QWidget* parent, const QString& file) {
  const QString path = manualPagePath(file.section('#', 0, 0));
  if (!QFileInfo(path).isFile()) {
    QMessageBox::warning(parent, tr("Manual"),
                         tr("The manual's page %1 is not there. Install AccumLab's package, or "
                            "set ACCUMLAB_DOCS to the folder of its docs.")
                             .arg(QDir::toNativeSeparators(path)));
    return false;
  }
  // ManualViewer has no meta-object of its own: found by its name, which only it carries.
  auto* viewer = parent ? static_cast<ManualViewer*>(parent->findChild<QDialog*>(
                              "manualViewer", Qt::FindDirectChildrenOnly))
                        : nullptr;
  if (!viewer) {
    viewer = new ManualViewer(parent);
    if (!parent) viewer->setAttribute(Qt::WA_DeleteOnClose);
  }
  viewer->showPage(file);
  return true;
}

}  // namespace accumlab::ui
