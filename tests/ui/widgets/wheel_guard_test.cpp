// SPDX-License-Identifier: GPL-3.0-or-later
// WheelGuard: the wheel over a combo box or spin box that the user has not clicked into changes
// nothing and goes on to the panel (Qt hands an ignored wheel event to the parents, and the
// scroll area scrolls); once the user has clicked or tabbed into the box, the wheel steps it.
#include <QApplication>
#include <QComboBox>
#include <QScrollArea>
#include <QSpinBox>
#include <QTest>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "widgets/wheel_guard.h"

using namespace accumlab::ui;

namespace {

/// One notch down over `w`; true when `w` took it (false: Qt hands it on to the parents, and
/// the scroll area scrolls).
bool wheelDown(QWidget* w) {
  const QPointF at(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent wheel(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &wheel);
  return wheel.isAccepted();
}

}  // namespace

class WheelGuardTest : public QObject {
  Q_OBJECT

 private slots:
  void theWheelScrollsThePanelUntilABoxIsClickedInto() {
    QScrollArea area;
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    auto* policy = new QComboBox;
    policy->addItems({"stream", "flush-exact", "flush-divide-by-K", "drop"});
    auto* epochs = new QSpinBox;
    epochs->setRange(1, 100);
    epochs->setValue(5);
    layout->addWidget(policy);
    layout->addWidget(epochs);
    layout->addSpacing(2000);  // a panel taller than its view
    area.setWidget(panel);
    area.resize(300, 200);
    WheelGuard::protect(&area);
    area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&area));

    QCOMPARE(policy->focusPolicy(), Qt::StrongFocus);
    // The window gives its first box the focus when it opens: not the user's choice.
    policy->setFocus(Qt::ActiveWindowFocusReason);
    QVERIFY2(!wheelDown(policy), "the box kept the wheel from its panel");
    QVERIFY(!wheelDown(epochs));
    QCOMPARE(policy->currentText(), QString("stream"));
    QCOMPARE(epochs->value(), 5);

    epochs->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(epochs->hasFocus());
    QVERIFY(wheelDown(epochs));
    QCOMPARE(epochs->value(), 4);  // chosen: the wheel steps it
    policy->setFocus(Qt::MouseFocusReason);
    QTRY_VERIFY(policy->hasFocus());
    QVERIFY(wheelDown(policy));
    QCOMPARE(policy->currentText(), QString("flush-exact"));
  }
};

QTEST_MAIN(WheelGuardTest)
#include "wheel_guard_test.moc"
