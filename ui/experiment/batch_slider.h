#pragma once

#include <QWidget>
#include <cstdint>

class QSlider;
class QSpinBox;

namespace accumlab::ui {

/// A slider with a spin box for a batch size: powers of two (the micro-batch m) or every
/// integer (the accumulation count K). The spin box accepts any value in range; the slider
/// shows the nearest step. GUI thread.
class BatchSlider : public QWidget {
  Q_OBJECT

 public:
  enum class Scale { kPowersOfTwo, kLinear };
  BatchSlider(Scale scale, int64_t minimum, int64_t maximum, QWidget* parent = nullptr);

  int64_t value() const;
  /// Sets the value without emitting valueChanged.
  void setValue(int64_t v);

 signals:
  /// The user settled on a new value (slider released or spin box edited).
  void valueChanged(qint64 value);
  /// The value shown while the slider is being dragged (for live labels).
  void valuePreview(qint64 value);

 private:
  int positionOf(int64_t v) const;
  int64_t valueAt(int position) const;

  Scale scale_;
  QSlider* slider_;
  QSpinBox* spin_;
  bool updating_ = false;
};

}  // namespace accumlab::ui
