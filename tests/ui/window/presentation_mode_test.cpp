// SPDX-License-Identifier: GPL-3.0-or-later
// View → Presentation mode (ui/window/presentation_mode.cpp): F11 makes the window full
// screen with fonts ×1.5, hides the docks and shows four chosen plots in a 2×2 grid; F11
// again restores everything.
#include <qcustomplot.h>
#include <QAction>
#include <QDockWidget>
#include <QGridLayout>
#include <QMenu>
#include <QScreen>
#include <QSignalSpy>
#include <QTest>

#include "plots/metric_canvas.h"
#include "plots/plot_grid.h"
#include "ui_test_support.h"
#include "window/app_options.h"
#include "window/app_settings.h"
#include "window/main_window.h"
#include "window/presentation_mode.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

QStringList shownPlots(PlotGrid* plots) {
  QStringList ids;
  for (MetricCanvas* c : plots->canvases()) {
    if (c->isVisibleTo(plots)) ids << c->definition().id;
  }
  return ids;
}

}  // namespace

class PresentationModeTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void f11PresentsFourLargePlotsAndRestoresTheWindow() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    QVERIFY(window.applyOptions(options));
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    PresentationMode* mode = window.presentationMode();
    QVERIFY(mode);
    PlotGrid* plots = window.plots();
    MetricCanvas* loss = plots->canvases().front();
    const double normal_size = loss->font().pointSizeF();
    QCOMPARE(shownPlots(plots).size(), 6);
    const QList<QDockWidget*> docks = window.findChildren<QDockWidget*>();
    QVERIFY(!docks.isEmpty() && docks.front()->isVisible());

    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(mode->isActive());
    QVERIFY(mode->action()->isChecked());
    QVERIFY(window.windowState() & Qt::WindowFullScreen);
    QCOMPARE(loss->font().pointSizeF(), normal_size * PresentationMode::kFontScale);
    // The plot's own axis fonts follow the widget's.
    QVERIFY(loss->plot()->xAxis->tickLabelFont().pointSizeF() > normal_size);
    QCOMPARE(shownPlots(plots), PresentationMode::defaultPlots());
    // Two columns: the first two plots side by side, the next two below them.
    const QList<MetricCanvas*> shown = [&] {
      QList<MetricCanvas*> l;
      for (MetricCanvas* c : plots->canvases()) {
        if (c->isVisibleTo(plots)) l << c;
      }
      return l;
    }();
    QTRY_VERIFY(shown[0]->y() == shown[1]->y() && shown[2]->y() > shown[0]->y() &&
                shown[2]->x() == shown[0]->x());
    for (QDockWidget* dock : docks) QVERIFY(!dock->isVisible());

    // Another choice of plots applies at once; a fifth replaces the oldest.
    mode->setChosenPlots({"loss", "variance", "noise", "validation", "throughput"});
    QCOMPARE(shownPlots(plots), (QStringList{"variance", "noise", "validation", "throughput"}));

    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(!mode->isActive());
    QVERIFY(!(window.windowState() & Qt::WindowFullScreen));
    QCOMPARE(loss->font().pointSizeF(), normal_size);
    QCOMPARE(shownPlots(plots).size(), 6);
    QVERIFY(docks.front()->isVisible());
  }

  void leavingRestoresTheWindowAndTheDockInFront() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    QVERIFY(window.applyOptions(options));
    window.resize(1000, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // Bring the last dock of a tab group to the front, as a user clicking its tab does.
    const QList<QDockWidget*> docks = window.findChildren<QDockWidget*>();
    // A dock behind another's tab is "visible" to Qt, but none of it shows.
    const auto inFront = [](QDockWidget* d) {
      return d->isVisible() && !d->visibleRegion().isEmpty();
    };
    QDockWidget* back = nullptr;
    for (QDockWidget* d : docks) {
      if (!window.tabifiedDockWidgets(d).isEmpty() && !inFront(d)) back = d;
    }
    QVERIFY2(back, "the docks share a tab group");
    back->raise();
    QTRY_VERIFY(inFront(back));
    const auto visibleDocks = [&] {
      QStringList v;
      for (QDockWidget* d : docks) {
        if (inFront(d)) v << d->objectName();
      }
      return v;
    };
    const QStringList before = visibleDocks();
    const QSize size = window.size();
    for (int round = 0; round < 2; ++round) {
      window.presentationMode()->setActive(true);
      QTRY_VERIFY(window.windowState() & Qt::WindowFullScreen);
      window.presentationMode()->setActive(false);
      QTRY_COMPARE(window.size(), size);
      QTRY_COMPARE(visibleDocks(), before);
    }
  }

  void aSavedGeometryLargerThanTheScreenIsFittedToIt() {
    // As a window saved on a larger screen, or while full screen, comes back.
    QWidget window;
    const QRect screen = window.screen()->availableGeometry();
    window.setGeometry(screen.x() + 200, screen.y() + 100, screen.width() + 400,
                       screen.height() + 300);
    AppSettings::fitToScreen(&window);
    QVERIFY2(screen.contains(window.geometry()), qPrintable(QString("%1,%2 %3x%4 in %5x%6")
                                                                .arg(window.x())
                                                                .arg(window.y())
                                                                .arg(window.width())
                                                                .arg(window.height())
                                                                .arg(screen.width())
                                                                .arg(screen.height())));
    // One that fits stays where it is.
    const QRect fits(screen.x() + 10, screen.y() + 10, screen.width() / 2, screen.height() / 2);
    window.setGeometry(fits);
    AppSettings::fitToScreen(&window);
    QCOMPARE(window.geometry(), fits);
  }

  void startsPresentingBeforeTheWindowIsShown() {
    // accumlab --presentation: the mode is set before show(); the docks stay hidden after it.
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.presentation = true;
    QVERIFY(window.applyOptions(options));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.presentationMode()->isActive());
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) QVERIFY(!dock->isVisible());
    QCOMPARE(shownPlots(window.plots()).size(), 4);
    window.presentationMode()->setActive(false);
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
      QVERIFY(!dock->isHidden() || dock->isFloating());
    }
  }
};

QTEST_MAIN(PresentationModeTest)
#include "presentation_mode_test.moc"
