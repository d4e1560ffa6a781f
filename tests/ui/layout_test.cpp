// The window at a projector's 1024×768 and at 1920×1080 (issue: "any screen"): it fits the
// screen, and after a run no plot title, read-out or legend is clipped or overlapping, and
// the status bar shows all of its parts. The screenshots of both sizes come from
// tests/ui/smoke_screenshot.sh; this checks the geometry they show.
#include <QDockWidget>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>
#include <qcustomplot.h>

#include "controller/training_controller.h"
#include "experiment/experiment_panel.h"
#include "plots/live_plots.h"
#include "plots/metric_canvas.h"
#include "ui_test_support.h"
#include "window/app_options.h"
#include "window/main_window.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

QString describe(const QRect& r) {
  return QString("%1,%2 %3×%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

}  // namespace

class LayoutTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void fitsTheScreen_data() {
    QTest::addColumn<QSize>("screen");
    QTest::newRow("1024x768") << QSize(1024, 768);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
  }

  void fitsTheScreen() {
    QFETCH(QSize, screen);
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.no_store = true;
    QVERIFY(window.applyOptions(options));
    const QSize min = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(min.width() <= screen.width() && min.height() <= screen.height(),
             qPrintable(QString("the window needs at least %1×%2").arg(min.width()).arg(min.height())));
    window.resize(screen);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), screen);

    // A run, so that legends, read-outs and the status bar's rates are filled.
    window.experimentPanel()->setConfig(test::smallExperiment(3000));
    QSignalSpy finished(window.controller(), &TrainingController::finished);
    window.startRun();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }, 60000));
    window.plots()->replotNow();
    QTest::qWait(50);

    for (MetricCanvas* canvas : window.plots()->canvases()) {
      const QString id = canvas->definition().id;
      auto* title = canvas->findChild<QLabel*>("title");
      auto* readout = canvas->findChild<QLabel*>("readout");
      QVERIFY(title && readout);
      // The title is whole; the read-out, when there is one, starts after it and is whole.
      QVERIFY2(title->width() >= title->sizeHint().width(),
               qPrintable(id + ": title clipped, " + describe(title->geometry())));
      if (!readout->text().isEmpty()) {
        QVERIFY2(readout->x() >= title->geometry().right(),
                 qPrintable(id + ": read-out overlaps the title"));
        // It wraps rather than widen its column: every line of it is on screen.
        QVERIFY2(readout->heightForWidth(readout->width()) <= readout->height(),
                 qPrintable(id + ": read-out clipped: " + readout->text()));
      }
      // Every legend lies inside its plot.
      QCustomPlot* plot = canvas->plot();
      const QRect inside = plot->rect();
      for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
        auto* rect = qobject_cast<QCPAxisRect*>(plot->plotLayout()->elementAt(i));
        if (!rect) continue;
        for (int j = 0; j < rect->insetLayout()->elementCount(); ++j) {
          auto* legend = qobject_cast<QCPLegend*>(rect->insetLayout()->elementAt(j));
          if (!legend || !legend->visible()) continue;
          QVERIFY2(inside.contains(legend->outerRect()),
                   qPrintable(id + ": legend " + describe(legend->outerRect()) + " leaves the plot " +
                              describe(inside)));
          QVERIFY2(legend->outerRect().height() <= rect->outerRect().height(),
                   qPrintable(id + ": legend taller than its pane"));
        }
      }
    }
    // The status bar shows each of its parts in full.
    for (QWidget* part : window.statusBar()->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly)) {
      if (!part->isVisible() || !qobject_cast<QLabel*>(part)) continue;
      auto* label = static_cast<QLabel*>(part);
      QVERIFY2(window.statusBar()->rect().contains(label->geometry()),
               qPrintable("status bar part cut off: " + label->text()));
    }
  }
};

QTEST_MAIN(LayoutTest)
#include "layout_test.moc"
