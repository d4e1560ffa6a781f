// SPDX-License-Identifier: GPL-3.0-or-later
// Help → Manual (ui/help/manual_pages.cpp): in a build tree the pages come from the sources'
// docs/, every page the Help menu names is there and renders in the app with its links and
// pictures, and a missing page gives a dialog naming its path instead of opening anything.
#include "help/manual_pages.h"

#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QMessageBox>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTimer>

using namespace accumlab::ui;

class ManualPagesTest : public QObject {
  Q_OBJECT

 private slots:
  void init() { qunsetenv("ACCUMLAB_DOCS"); }

  void aBuildTreeReadsTheSourcesDocs() {
    const QString dir = manualDirectory();
    QVERIFY2(dir.endsWith("/docs"), qPrintable(dir));
    QVERIFY(QFileInfo(dir + "/index.md").isFile());
  }

  void everyPageOfTheHelpMenuExists() {
    QVERIFY(manualPages().size() >= 5);
    QStringList files;
    for (const ManualPage& page : manualPages()) files << page.file;
    // The pages "Manual for this tab" opens (Live, Sweeps, Lessons) are among them.
    for (const char* tab_page : {"app.md", "sweeps.md", "lessons.md"})
      QVERIFY(files.contains(tab_page));
    for (const QString& file : files) {
      QVERIFY2(QFileInfo(manualPagePath(file)).isFile(), qPrintable(manualPagePath(file)));
    }
  }

  void aPageRendersInTheViewerAndItsLinksAreFollowed() {
    QWidget window;
    QVERIFY(openManualPage(&window, "index.md"));
    auto* viewer = window.findChild<QDialog*>("manualViewer");
    QVERIFY(viewer && viewer->isVisible());
    auto* browser = viewer->findChild<QTextBrowser*>("manualBrowser");
    QVERIFY(browser);
    // Rendered, not shown as source: the heading's '#' and the table's pipes are gone.
    const QString index = browser->toPlainText();
    QVERIFY2(index.startsWith("The AccumLab manual"), qPrintable(index.left(80)));
    QVERIFY(!index.contains("|---|"));
    // A link to another page opens it in the same viewer, with Back to return.
    browser->setSource(QUrl("app.md"));
    QVERIFY2(browser->toPlainText().contains("The Experiment dock"),
             qPrintable(browser->source().toString()));
    QVERIFY(browser->isBackwardAvailable());
    // Kept beside the test as an artefact to look at.
    viewer->grab().save(QDir::current().filePath("manual_viewer.png"));
    // The same window keeps one viewer: a second page reuses it.
    QVERIFY(openManualPage(&window, "sweeps.md"));
    QCOMPARE(window.findChildren<QDialog*>("manualViewer").size(), 1);
    QVERIFY(browser->source().toLocalFile().endsWith("sweeps.md"));
    // The pictures the pages show (../resources/*.png in the sources) load.
    const QVariant picture =
        browser->loadResource(QTextDocument::ImageResource,
                              browser->source().resolved(QUrl("../resources/sweep_steps.png")));
    QVERIFY(!qvariant_cast<QImage>(picture).isNull() || !picture.toByteArray().isEmpty());
    // A screenshot wider than the viewer is scaled to its width.
    const QImage shown = qvariant_cast<QImage>(picture);
    QVERIFY(!shown.isNull());
    QVERIFY2(shown.width() <= browser->viewport()->width(),
             qPrintable(QString::number(shown.width())));
  }

  void aLinkToASectionOpensAtTheSection() {
    QCOMPARE(headingSlug("Memory per arm"), QStringLiteral("memory-per-arm"));
    QCOMPARE(headingSlug("What `run --json` gives, and why?"),
             QStringLiteral("what-run---json-gives-and-why"));
    QWidget window;
    window.resize(900, 700);
    QVERIFY(openManualPage(&window, "measurements.md#memory-per-arm"));
    auto* browser = window.findChild<QTextBrowser*>("manualBrowser");
    QVERIFY(browser);
    QVERIFY(browser->source().toLocalFile().endsWith("measurements.md"));
    QCOMPARE(browser->source().fragment(), QStringLiteral("memory-per-arm"));
    // The section's heading is at the top of the view, not the page's first line.
    QTRY_VERIFY(browser->verticalScrollBar()->value() > 0);
    const QTextCursor top = browser->cursorForPosition(QPoint(20, 10));
    QVERIFY2(top.block().text().contains("Memory per arm") ||
                 top.block().previous().text().contains("Memory per arm") ||
                 top.block().next().text().contains("Memory per arm"),
             qPrintable(top.block().text()));
  }

  void anInstalledManualFindsItsPicturesBesideThePages() {
    // Installed, ../resources/x.png of a page is in images/ beside the pages.
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("images"));
    QFile page(dir.path() + "/index.md");
    QVERIFY(page.open(QIODevice::WriteOnly));
    page.write("# Installed\n\n![a picture](../resources/dot.png)\n");
    page.close();
    QImage dot(4, 4, QImage::Format_RGB32);
    dot.fill(Qt::red);
    QVERIFY(dot.save(dir.path() + "/images/dot.png"));
    qputenv("ACCUMLAB_DOCS", dir.path().toLocal8Bit());
    QWidget window;
    QVERIFY(openManualPage(&window, "index.md"));
    auto* browser = window.findChild<QTextBrowser*>("manualBrowser");
    QVERIFY(browser);
    const QVariant picture = browser->loadResource(
        QTextDocument::ImageResource, browser->source().resolved(QUrl("../resources/dot.png")));
    QVERIFY(!qvariant_cast<QImage>(picture).isNull() || !picture.toByteArray().isEmpty());
  }

  void aMissingPageIsNamedInADialog() {
    qputenv("ACCUMLAB_DOCS", "/nonexistent/accumlab-docs");
    QCOMPARE(manualPagePath("app.md"), QString("/nonexistent/accumlab-docs/app.md"));
    QString shown;
    QTimer::singleShot(0, [&shown] {
      for (QWidget* w : QApplication::topLevelWidgets()) {
        if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible()) {
          shown = box->text();
          box->accept();
        }
      }
    });
    QVERIFY(!openManualPage(nullptr, "app.md"));
    QVERIFY2(shown.contains("/nonexistent/accumlab-docs/app.md"), qPrintable(shown));
  }
};

QTEST_MAIN(ManualPagesTest)
#include "manual_pages_test.moc"
