// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/memory_estimator.h"

#include <QThread>
#include <exception>
#include <mutex>

#include "accumlab/generator_gate.h"
#include "accumlab/memory_model_probe.h"

namespace accumlab::ui {

namespace {

// The micro-batches of the two probes: small enough to be quick, far enough apart that the
// slope is not rounding.
constexpr int64_t kProbeSmall = 8;
constexpr int64_t kProbeLarge = 32;

QString mib(double bytes) {
  return QString::number(bytes / (1024.0 * 1024.0), 'f', bytes < 10 * 1024.0 * 1024.0 ? 1 : 0);
}

}  // namespace

MemoryEstimator::MemoryEstimator(QObject* parent) : QObject(parent) {}

MemoryEstimator::~MemoryEstimator() {
  if (worker_) worker_->wait();
}

QString MemoryEstimator::keyOf(const ExperimentConfig& c) {
  // What the peak depends on: the input shape (data), the model, the dtype, the optimizer's
  // state, where the tensors live and whether K = 1 arms split windows to measure noise. Not
  // m, K, the LR or the budget.
  return QString::fromStdString(c.data + "|" + c.label + "|" + std::to_string(c.synthetic_samples) +
                                "|" + c.model + "|" + toString(c.dtype) + "|" +
                                toString(c.optimizer.kind) + "|" +
                                (c.optimizer.momentum > 0 ? "momentum" : "") + "|" + c.device +
                                (c.noise_stats ? "|noise" : ""));
}

void MemoryEstimator::request(const ExperimentConfig& config) {
  const QString key = keyOf(config);
  const bool changed = key != wanted_key_;
  wanted_ = config;
  wanted_key_ = key;
  if (cache_.count(key)) {
    if (changed) emit modelReady();
    return;
  }
  if (!worker_) startProbe();
}

std::optional<MemoryModel> MemoryEstimator::current() const {
  auto it = cache_.find(wanted_key_);
  if (it == cache_.end() || !it->second.error.isEmpty() || !it->second.model.valid()) {
    return std::nullopt;
  }
  return it->second.model;
}

QString MemoryEstimator::failure() const {
  auto it = cache_.find(wanted_key_);
  return it == cache_.end() ? QString() : it->second.error;
}

void MemoryEstimator::startProbe() {
  const ExperimentConfig config = wanted_;
  const QString key = wanted_key_;
  worker_ = QThread::create([this, config, key] {
    Outcome out;
    std::unique_lock<std::mutex> gate(globalGeneratorGate(), std::try_to_lock);
    try {
      if (!gate.owns_lock()) {
        out.gave_way = true;  // a run is training: probing would change its random numbers
      } else {
        out.model = probeMemoryModel(config, kProbeSmall, kProbeLarge);
      }
      if (!out.gave_way && !out.model.valid()) {
        out.error = tr("tensor memory is not measured on this device");
      }
    } catch (const std::exception& e) {
      out.error = QString::fromUtf8(e.what());
    }
    // Back on the GUI thread; dropped if the estimator is gone (it waits for this thread).
    QMetaObject::invokeMethod(
        this, [this, key, out] { onProbeDone(key, out); }, Qt::QueuedConnection);
  });
  worker_->setObjectName("memory probe");
  connect(worker_, &QThread::finished, worker_, &QObject::deleteLater);
  worker_->start(QThread::LowPriority);
}

void MemoryEstimator::onProbeDone(const QString& key, const Outcome& outcome) {
  worker_ = nullptr;             // deletes itself once finished
  if (outcome.gave_way) return;  // asked again when the run has ended
  cache_[key] = outcome;
  if (key == wanted_key_) {
    emit modelReady();
  } else if (!cache_.count(wanted_key_)) {
    startProbe();  // the config changed while probing
  }
}

QString memoryEstimateText(const MemoryModel& model, int64_t m, int64_t k) {
  // The part that does not grow with m is what accumulation cannot save: for a small MLP it
  // is nearly all of it, and a ratio near 1 is the truth, not a measuring error.
  return QObject::tr(
             "m=%1: ≈ %2 MiB of tensors; m·K=%3 as one batch: ≈ %4 MiB (≈ %5 MiB of "
             "both is weights, gradients, optimizer state and sample order, whatever m)")
      .arg(m)
      .arg(mib(model.predict(m, k)))
      .arg(m * k)
      .arg(mib(model.predict(m * k)))
      .arg(mib(model.fixed_bytes));
}

}  // namespace accumlab::ui

namespace accumlab::ui {

QString memoryRatioText(const MemoryModel& model, int64_t m, int64_t k) {
  if (k <= 1)
    return QObject::tr("K = 1: accum is the big batch (≈ %1 MiB of tensors)")
        .arg(mib(model.predict(m)));
  const double accum = model.predict(m, k);
  const double big = model.predict(m * k);
  // What does not shrink with m (weights, gradients, optimizer state) against what does
  // (the batch and its activations), at the big batch.
  const bool weights = model.fixed_bytes >= big - model.fixed_bytes;
  return QObject::tr(
             "accum needs <b>%1</b> of big-batch's tensor memory on this model: %2 "
             "(%3 of %4 MiB)")
      .arg(QString::number(accum / big, 'f', 2),
           weights ? QObject::tr("its weights dominate") : QObject::tr("activations dominate"),
           mib(accum), mib(big));
}

}  // namespace accumlab::ui
