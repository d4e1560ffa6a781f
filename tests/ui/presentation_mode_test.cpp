// View → Presentation mode (ui/window/presentation_mode.cpp): F11 makes the window full
// screen with fonts ×1.5, hides the docks and shows four chosen plots in a 2×2 grid; F11
// again restores everything.
#include <QAction>
#include <QDockWidget>
#include <QGridLayout>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>
#include <qcustomplot.h>

#include "plots/live_plots.h"
#include "plots/metric_canvas.h"
#include "ui_test_support.h"
#include "window/app_options.h"
#include "window/main_window.h"
#include "window/presentation_mode.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

QStringList shownPlots(LivePlots* plots) {
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
    LivePlots* plots = window.plots();
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
