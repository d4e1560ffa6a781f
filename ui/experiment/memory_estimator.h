// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <map>
#include <optional>

#include "accumlab/experiment_config.h"
#include "accumlab/memory_model.h"

class QThread;

namespace accumlab::ui {

/// Predicts the peak tensor memory of an experiment's m and m·K from a MemoryModel that two
/// short probes of its model and data fit (probeMemoryModel). Probes run on a worker thread,
/// one at a time, and are cached per data, model, dtype, optimizer and device, so moving the
/// sliders only reads the cache. Lives on the GUI thread; the worker touches nothing of it
/// but the result it posts back.
class MemoryEstimator : public QObject {
  Q_OBJECT

 public:
  explicit MemoryEstimator(QObject* parent = nullptr);
  /// Waits for a running probe (about a second).
  ~MemoryEstimator() override;

  /// Asks for the model of `config`: at once when cached, else after a probe (modelReady).
  void request(const ExperimentConfig& config);
  /// The model of the last request, once known.
  std::optional<MemoryModel> current() const;
  /// Why the last request has no model: the probe's error, "" while probing or when known.
  QString failure() const;
  /// Whether a probe is running.
  bool probing() const { return worker_ != nullptr; }

 signals:
  /// The model (or the failure) of the last request is known.
  void modelReady();

 private:
  /// What a probe found: a model, or the sentence of its error; or that a run held the
  /// generator gate, so it did not probe (nothing to cache).
  struct Outcome {
    MemoryModel model;
    QString error;
    bool gave_way = false;
  };
  static QString keyOf(const ExperimentConfig& config);
  void startProbe();
  void onProbeDone(const QString& key, const Outcome& outcome);

  std::map<QString, Outcome> cache_;
  ExperimentConfig wanted_;
  QString wanted_key_;
  QThread* worker_ = nullptr;  ///< the running probe's thread, or null
};

/// "m=16: ≈ 21 MiB of tensors; m·K=256 as one batch: ≈ 190 MiB" for `model`.
QString memoryEstimateText(const MemoryModel& model, int64_t m, int64_t k);

/// What accumulation saves on `model`, in one sentence that wraps in a narrow dock: "accum
/// needs <b>0.95</b> of big-batch's tensor memory on this model: its weights dominate (1.8 of
/// 1.8 MiB)" (or "… 0.18 …: activations dominate"). The ratio is predict(m, K) /
/// predict(m·K).
QString memoryRatioText(const MemoryModel& model, int64_t m, int64_t k);

}  // namespace accumlab::ui
