// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/batch_slider.h"

#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace accumlab::ui {

namespace {

/// 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, …: four steps per doubling, within [lo, hi].
std::vector<int64_t> logSteps(int64_t lo, int64_t hi) {
  std::vector<int64_t> steps{lo};
  for (int64_t octave = 1; octave <= hi; octave *= 2) {
    for (const double f : {1.0, 1.25, 1.5, 1.75}) {
      const auto v = static_cast<int64_t>(std::lround(static_cast<double>(octave) * f));
      if (v > lo && v < hi) steps.push_back(v);
    }
  }
  steps.push_back(hi);
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

std::vector<int64_t> linearSteps(int64_t lo, int64_t hi) {
  std::vector<int64_t> steps;
  for (int64_t v = lo; v <= hi; ++v) steps.push_back(v);
  return steps;
}

}  // namespace

BatchSlider::BatchSlider(Scale scale, int64_t minimum, int64_t maximum, QWidget* parent)
    : QWidget(parent),
      scale_(scale),
      steps_(scale == Scale::kLogarithmic ? logSteps(minimum, maximum)
                                          : linearSteps(minimum, maximum)),
      slider_(new QSlider(Qt::Horizontal, this)),
      spin_(new QSpinBox(this)),
      settle_timer_(new QTimer(this)),
      settled_(minimum),
      pending_(minimum) {
  settle_timer_->setSingleShot(true);
  settle_timer_->setInterval(kSettleMs);
  connect(settle_timer_, &QTimer::timeout, this, [this] {
    if (pending_ == settled_) return;  // stepped away and back: no change
    settled_ = pending_;
    emit valueChanged(settled_);
  });
  spin_->setRange(static_cast<int>(minimum), static_cast<int>(maximum));
  spin_->setMinimumWidth(70);
  slider_->setRange(0, static_cast<int>(steps_.size()) - 1);
  // Only a released slider changes the run: one event per decision, not one per pixel.
  slider_->setTracking(false);
  slider_->setSingleStep(1);
  slider_->setPageStep(scale == Scale::kLogarithmic ? 4 : 8);  // a doubling, or K ± 8
  slider_->installEventFilter(this);
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
    settle(v);
  });
  // Without keyboard tracking the spin box reports typed values on Enter or focus-out and
  // arrow or wheel steps at once: each is one decision, like a released slider.
  spin_->setKeyboardTracking(false);
  connect(spin_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int v) {
    updating_ = true;
    slider_->setValue(positionOf(v));
    updating_ = false;
    settle(v);
  });
}

void BatchSlider::settle(int64_t v) {
  pending_ = v;
  emit valuePreview(v);
  settle_timer_->start();  // restarts: eight quick steps are one change
}

int64_t BatchSlider::value() const { return spin_->value(); }

void BatchSlider::setValue(int64_t v) {
  settle_timer_->stop();
  settled_ = pending_ = v;
  const QSignalBlocker block_spin(spin_);
  spin_->setValue(static_cast<int>(v));
  updating_ = true;
  slider_->setValue(positionOf(v));
  updating_ = false;
}

bool BatchSlider::eventFilter(QObject* watched, QEvent* event) {
  if (watched != slider_ || event->type() != QEvent::Wheel)
    return QWidget::eventFilter(watched, event);
  auto* wheel = static_cast<QWheelEvent*>(event);
  wheel_delta_ += wheel->angleDelta().y() != 0 ? wheel->angleDelta().y() : wheel->angleDelta().x();
  const int notches = wheel_delta_ / QWheelEvent::DefaultDeltasPerStep;
  wheel_delta_ -= notches * QWheelEvent::DefaultDeltasPerStep;
  if (notches != 0) slider_->setValue(slider_->value() + notches);
  event->accept();
  return true;
}

int BatchSlider::positionOf(int64_t v) const {
  // The nearest step on the slider's own scale (log distance for the log scale).
  auto distance = [&](int64_t s) {
    return scale_ == Scale::kLogarithmic
               ? std::abs(std::log(static_cast<double>(s)) -
                          std::log(static_cast<double>(std::max<int64_t>(v, 1))))
               : std::abs(static_cast<double>(s - v));
  };
  size_t best = 0;
  for (size_t i = 1; i < steps_.size(); ++i) {
    if (distance(steps_[i]) < distance(steps_[best])) best = i;
  }
  return static_cast<int>(best);
}

int64_t BatchSlider::valueAt(int position) const {
  return steps_[static_cast<size_t>(
      std::clamp<int>(position, 0, static_cast<int>(steps_.size()) - 1))];
}

}  // namespace accumlab::ui
