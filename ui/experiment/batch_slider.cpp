#include "experiment/batch_slider.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <cmath>

namespace accumlab::ui {

BatchSlider::BatchSlider(Scale scale, int64_t minimum, int64_t maximum, QWidget* parent)
    : QWidget(parent), scale_(scale), slider_(new QSlider(Qt::Horizontal, this)),
      spin_(new QSpinBox(this)) {
  spin_->setRange(static_cast<int>(minimum), static_cast<int>(maximum));
  spin_->setMinimumWidth(70);
  slider_->setRange(positionOf(minimum), positionOf(maximum));
  // Only a released slider changes the run: one event per decision, not one per pixel.
  slider_->setTracking(false);
  if (scale == Scale::kPowersOfTwo) {
    slider_->setTickPosition(QSlider::TicksBelow);
    slider_->setTickInterval(1);
    slider_->setPageStep(1);
  } else {
    slider_->setPageStep(8);
  }
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(slider_, 1);
  layout->addWidget(spin_);

  connect(slider_, &QSlider::sliderMoved, this, [this](int pos) {
    const QSignalBlocker block(spin_);
    spin_->setValue(static_cast<int>(valueAt(pos)));
    emit valuePreview(valueAt(pos));
  });
  connect(slider_, &QSlider::valueChanged, this, [this](int pos) {
    if (updating_) return;
    const int64_t v = valueAt(pos);
    {
      const QSignalBlocker block(spin_);
      spin_->setValue(static_cast<int>(v));
    }
    emit valueChanged(v);
  });
  // Without keyboard tracking the spin box reports typed values on Enter or focus-out and
  // arrow or wheel steps at once: each is one decision, like a released slider.
  spin_->setKeyboardTracking(false);
  connect(spin_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int v) {
    updating_ = true;
    slider_->setValue(positionOf(v));
    updating_ = false;
    emit valueChanged(v);
  });
}

int64_t BatchSlider::value() const { return spin_->value(); }

void BatchSlider::setValue(int64_t v) {
  const QSignalBlocker block_spin(spin_);
  spin_->setValue(static_cast<int>(v));
  updating_ = true;
  slider_->setValue(positionOf(v));
  updating_ = false;
}

int BatchSlider::positionOf(int64_t v) const {
  if (scale_ == Scale::kLinear) return static_cast<int>(v);
  return static_cast<int>(std::lround(std::log2(static_cast<double>(std::max<int64_t>(v, 1)))));
}

int64_t BatchSlider::valueAt(int position) const {
  if (scale_ == Scale::kLinear) return position;
  return int64_t{1} << position;
}

}  // namespace accumlab::ui
