// SPDX-License-Identifier: GPL-3.0-or-later
// The m and K sliders (ui/experiment/batch_slider.cpp): a drag, an arrow key or one wheel
// notch moves one small step, and every step is one valueChanged.
#include "experiment/batch_slider.h"

#include <QApplication>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTest>
#include <QWheelEvent>

using namespace accumlab::ui;

namespace {

/// One notch of a mouse wheel (120/8 = 15 degrees) over the widget, upwards.
void wheelNotch(QWidget* w) {
  const QPointF at(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, QWheelEvent::DefaultDeltasPerStep),
                    Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &event);
}

/// The slider's handle centre for position `pos`, in slider coordinates.
QPoint handleAt(QSlider* slider, int pos) {
  QStyleOptionSlider opt;
  opt.initFrom(slider);
  opt.orientation = slider->orientation();
  opt.minimum = slider->minimum();
  opt.maximum = slider->maximum();
  opt.sliderPosition = pos;
  opt.sliderValue = pos;
  const QRect handle =
      slider->style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderHandle, slider);
  const QRect groove =
      slider->style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove, slider);
  const int span = groove.width() - handle.width();
  const int x = groove.x() + QStyle::sliderPositionFromValue(opt.minimum, opt.maximum, pos, span) +
                handle.width() / 2;
  return {x, handle.center().y()};
}

}  // namespace

class BatchSliderTest : public QObject {
  Q_OBJECT

 private slots:
  void theMicroBatchScaleHasFourStepsPerDoubling() {
    BatchSlider m(BatchSlider::Scale::kLogarithmic, 1, 1024);
    const std::vector<int64_t> from_8(std::find(m.steps().begin(), m.steps().end(), 8),
                                      std::find(m.steps().begin(), m.steps().end(), 32) + 1);
    QCOMPARE(from_8, (std::vector<int64_t>{8, 10, 12, 14, 16, 20, 24, 28, 32}));
    QCOMPARE(m.steps().front(), int64_t{1});
    QCOMPARE(m.steps().back(), int64_t{1024});
    // A value between steps stays exact in the box; the slider shows the nearest step.
    m.setValue(9);
    QCOMPARE(m.value(), int64_t{9});
  }

  void anArrowKeyMovesOneStep() {
    BatchSlider m(BatchSlider::Scale::kLogarithmic, 1, 1024);
    m.setValue(8);
    QSignalSpy changed(&m, &BatchSlider::valueChanged);
    auto* slider = m.findChild<QSlider*>();
    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(m.value(), int64_t{10});
    QVERIFY(changed.wait(2 * BatchSlider::kSettleMs));
    QCOMPARE(changed.count(), 1);
    QTest::keyClick(slider, Qt::Key_Left);
    QTest::keyClick(slider, Qt::Key_Left);
    QCOMPARE(m.value(), int64_t{7});
  }

  void oneWheelNotchIsOneStep() {
    BatchSlider m(BatchSlider::Scale::kLogarithmic, 1, 1024);
    m.setValue(8);
    wheelNotch(m.findChild<QSlider*>());
    QCOMPARE(m.value(), int64_t{10});  // not 16 (three steps, Qt's default)
    BatchSlider k(BatchSlider::Scale::kLinear, 1, 256);
    k.setValue(8);
    QSignalSpy changed(&k, &BatchSlider::valueChanged);
    wheelNotch(k.findChild<QSlider*>());
    QCOMPARE(k.value(), int64_t{9});
    QVERIFY(changed.wait(2 * BatchSlider::kSettleMs));
    QCOMPARE(changed.count(), 1);
  }

  void quickStepsAreOneChangeWhenTheSliderComesToRest() {
    // Eight Right-arrow presses in a row once made eight mid-run changes (K 9 … 16).
    BatchSlider k(BatchSlider::Scale::kLinear, 1, 256);
    k.setValue(8);
    QSignalSpy changed(&k, &BatchSlider::valueChanged);
    QSignalSpy preview(&k, &BatchSlider::valuePreview);
    auto* slider = k.findChild<QSlider*>();
    for (int i = 0; i < 8; ++i) {
      QTest::keyClick(slider, Qt::Key_Right);
      QTest::qWait(BatchSlider::kSettleMs / 6);
    }
    QCOMPARE(k.value(), int64_t{16});
    QCOMPARE(preview.count(), 8);  // the labels follow every step
    QCOMPARE(changed.count(), 0);  // the run does not, yet
    QVERIFY(changed.wait(2 * BatchSlider::kSettleMs));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.front().front().toLongLong(), qint64{16});
    // Stepping away and back within the pause changes nothing.
    QTest::keyClick(slider, Qt::Key_Right);
    QTest::keyClick(slider, Qt::Key_Left);
    QVERIFY(!changed.wait(2 * BatchSlider::kSettleMs));
    QCOMPARE(changed.count(), 1);
  }

  void aShortDragMovesToTheNextStep() {
    // The slider as narrow as at 1024×768: a drag of one step's width reaches 10, not 16.
    BatchSlider m(BatchSlider::Scale::kLogarithmic, 1, 1024);
    m.resize(200, 30);
    m.show();
    QVERIFY(QTest::qWaitForWindowExposed(&m));
    m.setValue(8);
    auto* slider = m.findChild<QSlider*>();
    QSignalSpy changed(&m, &BatchSlider::valueChanged);
    const int pos = slider->value();
    const QPoint from = handleAt(slider, pos);
    const QPoint to = handleAt(slider, pos + 1);
    QVERIFY2(to.x() - from.x() >= 2, "a step should be at least 2 px wide");
    QTest::mousePress(slider, Qt::LeftButton, Qt::NoModifier, from);
    QTest::mouseMove(slider, QPoint((from.x() + to.x()) / 2 + 1, from.y()));
    QTest::mouseMove(slider, to);
    QTest::mouseRelease(slider, Qt::LeftButton, Qt::NoModifier, to);
    QCOMPARE(m.value(), int64_t{10});
    QVERIFY(changed.wait(2 * BatchSlider::kSettleMs));
    QCOMPARE(changed.count(), 1);  // one decision, at release
  }
};

QTEST_MAIN(BatchSliderTest)
#include "batch_slider_test.moc"
