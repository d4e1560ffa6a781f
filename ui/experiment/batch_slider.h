// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>
#include <cstdint>
#include <vector>

class QSlider;
class QSpinBox;
class QTimer;

namespace accumlab::ui {

/// A slider with a spin box for a batch size: on a log scale with four steps per doubling
/// (the micro-batch m: 1, 2, 3, …, 8, 10, 12, 14, 16, 20, …) or every integer (the
/// accumulation count K). A drag, an arrow key or one wheel notch moves one step; the spin
/// box accepts any value in range and the slider shows the nearest step. Steps that follow
/// each other within kSettleMs (arrow keys held, a wheel turned) are one decision: the value
/// changes once, when the control comes to rest. GUI thread.
class BatchSlider : public QWidget {
  Q_OBJECT

 public:
  enum class Scale { kLogarithmic, kLinear };
  /// How long the control must rest before a new value counts as the user's decision.
  static constexpr int kSettleMs = 300;
  BatchSlider(Scale scale, int64_t minimum, int64_t maximum, QWidget* parent = nullptr);

  int64_t value() const;
  /// Sets the value without emitting valueChanged.
  void setValue(int64_t v);
  /// The values the slider stops at, in order.
  const std::vector<int64_t>& steps() const { return steps_; }

 signals:
  /// The user settled on a new value (slider released or spin box edited, then kSettleMs at
  /// rest); a value equal to the last one settled is not reported.
  void valueChanged(qint64 value);
  /// The value shown while the slider is being dragged or stepped (for live labels).
  void valuePreview(qint64 value);

 protected:
  /// One wheel notch on the slider is one step (Qt's default is three).
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  int positionOf(int64_t v) const;
  int64_t valueAt(int position) const;
  /// Shows `v` at once and reports it once the control has rested kSettleMs.
  void settle(int64_t v);

  Scale scale_;
  std::vector<int64_t> steps_;
  QSlider* slider_;
  QSpinBox* spin_;
  QTimer* settle_timer_;
  int64_t settled_;  ///< the value last reported (or set)
  int64_t pending_;  ///< the value to report when the timer fires
  bool updating_ = false;
  int wheel_delta_ = 0;  ///< angle not yet turned into a step (high-resolution wheels)
};

}  // namespace accumlab::ui
