#pragma once

#include <QWidget>
#include <cstdint>
#include <vector>

class QSlider;
class QSpinBox;

namespace accumlab::ui {

/// A slider with a spin box for a batch size: on a log scale with four steps per doubling
/// (the micro-batch m: 1, 2, 3, …, 8, 10, 12, 14, 16, 20, …) or every integer (the
/// accumulation count K). A drag, an arrow key or one wheel notch moves one step; the spin
/// box accepts any value in range and the slider shows the nearest step. GUI thread.
class BatchSlider : public QWidget {
  Q_OBJECT

 public:
  enum class Scale { kLogarithmic, kLinear };
  BatchSlider(Scale scale, int64_t minimum, int64_t maximum, QWidget* parent = nullptr);

  int64_t value() const;
  /// Sets the value without emitting valueChanged.
  void setValue(int64_t v);
  /// The values the slider stops at, in order.
  const std::vector<int64_t>& steps() const { return steps_; }

 signals:
  /// The user settled on a new value (slider released or spin box edited).
  void valueChanged(qint64 value);
  /// The value shown while the slider is being dragged (for live labels).
  void valuePreview(qint64 value);

 protected:
  /// One wheel notch on the slider is one step (Qt's default is three).
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  int positionOf(int64_t v) const;
  int64_t valueAt(int position) const;

  Scale scale_;
  std::vector<int64_t> steps_;
  QSlider* slider_;
  QSpinBox* spin_;
  bool updating_ = false;
  int wheel_delta_ = 0;  ///< angle not yet turned into a step (high-resolution wheels)
};

}  // namespace accumlab::ui
