// SPDX-License-Identifier: GPL-3.0-or-later
// Every tab at the screen size CTest gives this test (a projector's 1024×768, a laptop's
// 1366×768, 1920×1080: tests/ui/screens/), idle, running, after a run and comparing two
// runs, in the normal window and in presentation mode. Each state fails when a label's text does
// not fit its rectangle (and is not elided with the whole text in its tooltip), a pane needs
// horizontal scrolling, a legend covers plotted points, tick labels run into each other, or an axis
// label, a caption, a note or a placeholder text is cut (elided: a plot has no tooltip to
// give the rest). The screenshots it checks are kept in
// $ACCUMLAB_LAYOUT_SHOTS (one PNG per state and tab) to be looked at.
#include <qcustomplot.h>
#include <QAbstractButton>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include "accumlab/run_store.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_spec.h"
#include "accumlab/sweep_store.h"
#include "accumlab/trainer.h"
#include "controller/training_controller.h"
#include "experiment/experiment_panel.h"
#include "lessons/lesson_panel.h"
#include "plots/metric_canvas.h"
#include "plots/plot_grid.h"
#include "runs/runs_panel.h"
#include "ui_test_support.h"
#include "window/app_options.h"
#include "window/main_window.h"
#include "window/presentation_mode.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

QString describe(const QRect& r) {
  return QString("%1,%2 %3×%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

QString describe(const QRectF& r) { return describe(r.toAlignedRect()); }

/// A widget the user can see: shown, with some of it on screen (a dock behind another's
/// tab is "visible" to Qt, but none of it shows).
bool onScreen(const QWidget* w) {
  return w->isVisible() && w->width() > 0 && w->height() > 0 && !w->visibleRegion().isEmpty();
}

/// The label's text without markup.
QString plainText(const QLabel* label) {
  if (label->textFormat() == Qt::PlainText) return label->text();
  QTextDocument doc;
  doc.setHtml(label->text());
  return doc.toPlainText();
}

/// Whether `label` shows all of its text, or elides it and gives all of it in its tooltip.
bool labelFits(const QLabel* label, QString* why) {
  if (label->text().isEmpty() || !label->pixmap().isNull()) return true;
  if (label->text().endsWith(QChar(u'…')) && !label->toolTip().isEmpty()) return true;
  const QRect inside = label->contentsRect();
  if (label->wordWrap()) {
    const int needed = label->heightForWidth(label->width());
    if (needed <= label->height() + 1) return true;
    *why = QString("needs %1 px of height, has %2").arg(needed).arg(label->height());
    return false;
  }
  const int needed = label->sizeHint().width() - (label->width() - inside.width());
  if (needed <= inside.width() + 1) return true;
  *why = QString("needs %1 px of width, has %2").arg(needed).arg(inside.width());
  return false;
}

/// Where each tick label of `axis` lies, in the plot's pixels.
QList<QRectF> tickLabelRects(QCPAxis* axis) {
  QList<QRectF> rects;
  if (!axis->visible() || !axis->tickLabels()) return rects;
  const QFontMetricsF fm(axis->tickLabelFont());
  const QVector<double> ticks = axis->tickVector();
  const QVector<QString> labels = axis->tickVectorLabels();
  const bool horizontal = axis->orientation() == Qt::Horizontal;
  for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
    if (!axis->range().contains(ticks[i]) || labels[i].isEmpty()) continue;
    const double at = axis->coordToPixel(ticks[i]);
    QRectF r(QPointF(0, 0), fm.size(0, labels[i]));
    if (horizontal) {
      r.moveCenter(QPointF(at, 0));
    } else {
      r.moveCenter(QPointF(0, at));
    }
    rects << r;
  }
  return rects;
}

/// Every problem of the plot's own drawing: tick labels that touch, axis labels longer
/// than their axis, legends over data points, placeholder texts outside the plot.
QStringList plotProblems(QCustomPlot* plot) {
  QStringList problems;
  const QRect area = plot->rect();
  for (QCPAxisRect* rect : plot->axisRects()) {
    if (!rect->visible() || rect->outerRect().height() <= 0) continue;
    for (QCPAxis* axis : rect->axes()) {
      if (!axis->visible()) continue;
      QList<QRectF> labels = tickLabelRects(axis);
      const bool horizontal = axis->orientation() == Qt::Horizontal;
      std::sort(labels.begin(), labels.end(), [&](const QRectF& a, const QRectF& b) {
        return horizontal ? a.left() < b.left() : a.top() < b.top();
      });
      for (int i = 1; i < labels.size(); ++i) {
        const double gap = horizontal ? labels[i].left() - labels[i - 1].right()
                                      : labels[i].top() - labels[i - 1].bottom();
        if (gap < 2) {
          problems << QString("tick labels %1 and %2 touch (gap %3 px)")
                          .arg(axis->tickVectorLabels().value(i - 1),
                               axis->tickVectorLabels().value(i))
                          .arg(gap, 0, 'f', 1);
          break;
        }
      }
      if (axis->label().contains(QChar(u'…'))) {
        // Wrapped onto more lines is fine; cut is not: an axis has no tooltip to say the rest.
        problems << QString("axis label '%1' is cut (its whole text: '%2')")
                        .arg(axis->label(), axis->property("accumlabFullLabel").toString());
      }
      if (!axis->label().isEmpty()) {
        const double length = QFontMetricsF(axis->labelFont()).size(0, axis->label()).width();
        const double room = horizontal ? rect->outerRect().width() : rect->outerRect().height();
        if (length > room + 1) {
          problems << QString("axis label '%1' is %2 px on a %3 px axis")
                          .arg(axis->label())
                          .arg(length)
                          .arg(room);
        }
      }
    }
    // A legend inside a pane covers none of the pane's plotted points.
    for (int j = 0; j < rect->insetLayout()->elementCount(); ++j) {
      auto* legend = qobject_cast<QCPLegend*>(rect->insetLayout()->elementAt(j));
      if (!legend || !legend->visible() || legend->itemCount() == 0) continue;
      const QRect box = legend->outerRect();
      if (!area.contains(box))
        problems << "legend " + describe(box) + " leaves the plot " + describe(area);
      int covered = 0;
      QString whose;
      for (QCPGraph* g : rect->graphs()) {
        if (!g->visible()) continue;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
          if (!std::isfinite(it->key) || !std::isfinite(it->value)) continue;
          const QPointF p = g->coordsToPixels(it->key, it->value);
          if (box.contains(p.toPoint()) && rect->rect().contains(p.toPoint())) {
            ++covered;
            whose = g->name();
          }
        }
      }
      if (covered > 0) {
        problems << QString("legend %1 covers %2 plotted points (of '%3')")
                        .arg(describe(box))
                        .arg(covered)
                        .arg(whose);
      }
    }
  }
  // Legends and titles in the plot's own layout (above or beside the panes) show whole.
  QList<QCPLayoutElement*> elements;
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
    elements << plot->plotLayout()->elementAt(i);
  for (int i = 0; i < elements.size(); ++i) {
    QCPLayoutElement* e = elements[i];
    if (!e || !e->visible()) continue;
    if (auto* grid = qobject_cast<QCPLayoutGrid*>(e)) {
      for (int j = 0; j < grid->elementCount(); ++j) elements << grid->elementAt(j);
    } else if (auto* legend = qobject_cast<QCPLegend*>(e); legend && legend->itemCount() > 0) {
      if (!QRect(area).contains(legend->outerRect()) ||
          legend->minimumOuterSizeHint().width() > legend->outerRect().width() + 1) {
        problems << "legend " + describe(legend->outerRect()) + " is cut in the plot " +
                        describe(area);
      }
    } else if (auto* title = qobject_cast<QCPTextElement*>(e)) {
      const double width = QFontMetricsF(title->font()).size(0, title->text()).width();
      if (width > title->outerRect().width() + 1) {
        problems << QString("title '%1' is %2 px in %3 px")
                        .arg(title->text())
                        .arg(width)
                        .arg(title->outerRect().width());
      }
    }
  }
  for (int i = 0; i < plot->itemCount(); ++i) {
    auto* text = qobject_cast<QCPItemText*>(plot->item(i));
    if (!text || !text->visible() || text->text().isEmpty()) continue;
    const QPointF at = text->position->pixelPosition();
    const QSizeF size = QFontMetricsF(text->font()).size(0, text->text()) +
                        QSizeF(text->padding().left() + text->padding().right(),
                               text->padding().top() + text->padding().bottom());
    QRectF r(at, size);
    const Qt::Alignment align = text->positionAlignment();
    if (align & Qt::AlignHCenter) r.moveLeft(at.x() - size.width() / 2);
    if (align & Qt::AlignRight) r.moveLeft(at.x() - size.width());
    if (align & Qt::AlignVCenter) r.moveTop(at.y() - size.height() / 2);
    if (align & Qt::AlignBottom) r.moveTop(at.y() - size.height());
    if (text->text().contains(QChar(u'…'))) {
      problems << "note '" + text->text() + "' is cut";
    }
    if (text->rotation() == 0 && !QRectF(area).adjusted(-1, -1, 1, 1).contains(r)) {
      problems << "text '" + text->text().left(40) + "' " + describe(r) + " leaves the plot " +
                      describe(area);
    }
  }
  return problems;
}

/// Every problem a person would see in `root`'s visible part.
QStringList layoutProblems(QWidget* root) {
  QStringList problems;
  for (QLabel* label : root->findChildren<QLabel*>()) {
    if (!onScreen(label)) continue;
    QString why;
    if (!labelFits(label, &why))
      problems << "label '" + plainText(label).left(60) + "' is cut: " + why;
  }
  for (QAbstractButton* button : root->findChildren<QAbstractButton*>()) {
    if (!onScreen(button) || button->text().isEmpty()) continue;
    if (qobject_cast<QAbstractButton*>(button) &&
        button->sizeHint().width() > button->width() + 1 &&
        button->minimumSizeHint().width() > button->width() + 1) {
      problems << QString("button '%1' is cut: needs %2 px, has %3")
                      .arg(button->text())
                      .arg(button->minimumSizeHint().width())
                      .arg(button->width());
    }
  }
  for (QLineEdit* edit : root->findChildren<QLineEdit*>()) {
    if (!onScreen(edit) || edit->hasFocus() || edit->text().isEmpty()) continue;
    if (qobject_cast<QComboBox*>(edit->parentWidget())) continue;  // a combo box's own line
    const int needed = edit->fontMetrics().horizontalAdvance(edit->text()) + 8;
    if (needed > edit->width()) {
      problems << QString("field '%1' shows part of its text: needs %2 px, has %3")
                      .arg(edit->text())
                      .arg(needed)
                      .arg(edit->width());
    }
  }
  for (QScrollArea* scroll : root->findChildren<QScrollArea*>()) {
    if (!onScreen(scroll)) continue;
    if (scroll->horizontalScrollBar()->isVisible()) {
      problems << "pane '" + scroll->objectName() + "' needs horizontal scrolling (" +
                      QString::number(scroll->widget() ? scroll->widget()->minimumSizeHint().width()
                                                       : 0) +
                      " px in " + QString::number(scroll->viewport()->width()) + ")";
    }
  }
  for (QHeaderView* header : root->findChildren<QHeaderView*>()) {
    if (!onScreen(header) || header->orientation() != Qt::Horizontal || !header->model()) continue;
    for (int s = 0; s < header->count(); ++s) {
      if (header->isSectionHidden(s)) continue;
      const QString text = header->model()->headerData(s, Qt::Horizontal).toString();
      const int needed = header->fontMetrics().horizontalAdvance(text) + 8;
      if (needed > header->sectionSize(s)) {
        problems << QString("column '%1' is cut: needs %2 px, has %3")
                        .arg(text)
                        .arg(needed)
                        .arg(header->sectionSize(s));
      }
    }
  }
  for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
    if (!onScreen(plot)) continue;
    plot->replot(QCustomPlot::rpImmediateRefresh);
    for (const QString& p : plotProblems(plot)) {
      QString where = plot->objectName();
      for (QWidget* w = plot->parentWidget(); where.isEmpty() && w; w = w->parentWidget()) {
        if (auto* canvas = qobject_cast<MetricCanvas*>(w)) where = canvas->definition().id;
      }
      problems << "plot " + where + ": " + p;
    }
  }
  problems.removeDuplicates();
  return problems;
}

/// Twelve points of a finished sweep, as `accumlab-cli sweep` stores them.
int64_t storeSweep(RunStore& store) {
  std::vector<SweepPoint> points;
  for (int64_t m : {8, 16, 32}) {
    for (int64_t k : {1, 2, 4, 8}) {
      SweepPoint p;
      p.index = static_cast<int64_t>(points.size());
      p.micro_batch = m;
      p.accum = k;
      p.lr = 0.05;
      points.push_back(p);
    }
  }
  SweepSpec spec;
  spec.target.value = 0.5;
  const int64_t id = SweepStore(store).create("layout", spec, points);
  for (SweepPoint p : points) {
    const double b = static_cast<double>(p.effectiveBatch());
    p.status = SweepStatus::kReached;
    p.steps_to_target = 120.0 * (1.0 + 60.0 / b);
    p.samples_to_target = p.steps_to_target * b;
    p.loss_variance = 0.4 / b;
    p.loss_variance_count = 50;
    p.variance_probe_ratio = static_cast<double>(p.accum);
    p.peak_tensor_bytes = 200000 + 9000 * p.micro_batch;
    p.samples_per_s = 9000.0 * std::sqrt(static_cast<double>(p.micro_batch));
    p.b_simple = 70;
    p.val_accuracy = 0.83;
    p.steps = static_cast<int64_t>(p.steps_to_target) + 10;
    SweepStore(store).updatePoint(id, p);
  }
  return id;
}

}  // namespace

class LayoutTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
    shots_ = qEnvironmentVariable("ACCUMLAB_LAYOUT_SHOTS");
    if (!shots_.isEmpty()) QDir().mkpath(shots_);
    screen_ = QGuiApplication::primaryScreen()->availableGeometry().size();
    size_name_ = QString("%1x%2").arg(screen_.width()).arg(screen_.height());
    db_ = dir_.filePath("runs.sqlite");
    RunStore store(db_.toStdString());
    storeSweep(store);
    {
      // A stored experiment to compare the test's own run with.
      ExperimentConfig other = test::smallExperiment(4096);
      other.accum = 2;
      StoreSink sink(db_.toStdString());
      Trainer(other).run(sink);
    }
  }

  void everyTabInEveryStateFitsTheScreen() {
    MainWindow window;
    AppOptions options;
    options.fresh = true;
    options.db = db_;
    QVERIFY(window.applyOptions(options));
    const QSize min = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(
        min.width() <= screen_.width() && min.height() <= screen_.height(),
        qPrintable(QString("the window needs at least %1×%2").arg(min.width()).arg(min.height())));
    window.resize(screen_);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), screen_);
    // A lesson chosen, so that its text, question and the side panel are all shown.
    QVERIFY(window.openLesson("1"));

    check(window, "idle");

    // Running: a run long enough to look at, with probes and evaluations on the plots.
    ExperimentConfig running = test::smallExperiment(4000000);
    running.eval_every = 4000;
    running.probe_every = 8000;
    window.experimentPanel()->setConfig(running);
    window.startRun();
    QVERIFY(test::waitUntil([&] { return window.plots()->pointCount() > 2000; }, 60000));
    QVERIFY(test::waitUntil([&] { return window.controller()->isRunning(); }));
    QTest::qWait(1500);  // probes and an evaluation
    if (window.size() != screen_) {
      problems_ << QString("%1: running, the window grew to %2×%3")
                       .arg(size_name_)
                       .arg(window.width())
                       .arg(window.height());
    }
    // A status message (the LR hint) takes the state's place instead of running into it.
    window.statusBar()->showMessage("accum lags no-accum: try scaling its learning rate by K",
                                    3000);
    QTest::qWait(50);
    for (QLabel* label : window.statusBar()->findChildren<QLabel*>()) {
      if (label->objectName() == "message") continue;  // the message itself
      if (onScreen(label) && !label->text().isEmpty() &&
          label->x() < window.statusBar()->width() / 2) {
        problems_ << size_name_ + ": a status message overlaps the label '" + label->text() + "'";
      }
    }
    check(window, "running");
    window.statusBar()->clearMessage();

    // Presentation mode during the run: four plots at 1.5× fonts on the whole screen.
    window.presentationMode()->setActive(true);
    QTRY_COMPARE(window.size(), QGuiApplication::primaryScreen()->geometry().size());
    check(window, "presenting", {0});
    window.presentationMode()->setActive(false);
    QTest::qWait(300);
    if (window.size() != screen_) {
      problems_ << QString(
                       "%1: leaving presentation mode left the window %2×%3 (needs at least %4×%5)")
                       .arg(size_name_)
                       .arg(window.width())
                       .arg(window.height())
                       .arg(window.minimumSizeHint().width())
                       .arg(window.minimumSizeHint().height());
    }

    QSignalSpy finished(window.controller(), &TrainingController::finished);
    window.controller()->stop();
    QVERIFY(test::waitUntil([&] { return finished.count() == 1; }, 30000));
    window.plots()->replotNow();
    check(window, "after-run");

    // Comparing two stored runs (as the Runs dock's Compare does), normal and presenting.
    // One run of each of two experiments (runs of one experiment are drawn as one).
    std::vector<int64_t> ids;
    std::set<int64_t> experiments;
    for (const RunRow& r : RunStore(db_.toStdString()).listRuns()) {
      if (experiments.insert(r.experiment_id).second) ids.push_back(r.id);
    }
    QVERIFY(ids.size() >= 2);
    auto* runs = window.findChild<RunsPanel*>();
    QVERIFY(runs);
    emit runs->compareRequested({ids[0], ids[1]});
    QTRY_VERIFY2(!window.plots()->compareKey().isEmpty(), qPrintable(window.lastError()));
    window.plots()->replotNow();
    check(window, "comparing", {0});
    window.presentationMode()->setActive(true);
    QTRY_COMPARE(window.size(), QGuiApplication::primaryScreen()->geometry().size());
    check(window, "comparing-presenting", {0});
    window.presentationMode()->setActive(false);
    for (const QString& p : problems_) qWarning().noquote() << p;
    QVERIFY2(problems_.isEmpty(),
             qPrintable(QString("%1 layout problems (above)").arg(problems_.size())));
  }

 private:
  /// Checks each tab (or the tabs at `only`) of `window` in `state`, saving a screenshot of
  /// each; records the problems rather than stopping at the first.
  void check(MainWindow& window, const QString& state, const QList<int>& only = {}) {
    auto* tabs = window.findChild<QTabWidget*>("centralTabs");
    QVERIFY(tabs);
    const int shown = tabs->currentIndex();
    for (int i = 0; i < tabs->count(); ++i) {
      if (!only.isEmpty() && !only.contains(i)) continue;
      tabs->setCurrentIndex(i);
      QTest::qWait(120);  // layouts settle, plots replot
      // A label whose text came in the wait's last events (the memory probe's sentence ends
      // on its own thread, at a time that depends on the machine's load) has its layout
      // request still queued: handle it, and those it queues for the parents, as the next
      // frame would before anyone sees it.
      for (int pass = 0; pass < 4; ++pass) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
      }
      const QString where = size_name_ + " " + state + " " + tabs->tabText(i).remove('&');
      if (!shots_.isEmpty()) {
        const QString file =
            QString("%1/%2-%3.png").arg(shots_, state, tabs->tabText(i).remove('&').toLower());
        QVERIFY(window.grab().save(file));
      }
      for (const QString& p : layoutProblems(&window)) problems_ << where + ": " + p;
    }
    tabs->setCurrentIndex(shown);
  }

  QTemporaryDir dir_;
  QString db_;
  QString shots_;
  QSize screen_;
  QString size_name_;
  QStringList problems_;
};

QTEST_MAIN(LayoutTest)
#include "layout_test.moc"
