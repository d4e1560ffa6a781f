// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "accumlab/run_store.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_store.h"
#include "plots/plot_exporter.h"

class QCustomPlot;

namespace accumlab::ui {

/// A sweep's plots, each against the effective batch B on log-log axes (docs/sweeps.md):
/// 1. the per-update loss variance with the fitted slope and the 1/B line;
/// 2. steps to target with the fitted S(B) = S_min + E_min/B, perfect scaling (E_min/B),
///    S_min, and B_crit and B_simple marked;
/// 3. samples to target with E(B) = E_min + S_min·B;
/// 4. peak tensor memory and samples/s against m at the B trained with the most m (the
///    accumulation trade-off at one update size);
/// 5. the final validation accuracy.
/// Points that missed the target, diverged or failed are open markers at the top of the
/// steps and samples plots, never dropped. GUI thread.
class SweepPlots : public QWidget {
  Q_OBJECT

 public:
  explicit SweepPlots(QWidget* parent = nullptr);
  /// The title of sweep plot `id` (accumlab/plot_ids.h), empty for another id.
  static QString title(const QString& id);
  /// Draws `sweep` with its fits.
  void setSweep(const SweepDetail& sweep, const SweepAnalysis& analysis);
  /// The plots as PNG images with their titles and explanations.
  std::vector<PlotImage> capture() const;
  int count() const { return static_cast<int>(plots_.size()); }
  QCustomPlot* plot(int i) const { return plots_.at(static_cast<size_t>(i)); }

 private:
  struct Def {
    QString id, title, explanation;
  };
  /// Every sweep plot, in sweepPlotIds() order.
  static std::vector<Def> defs();
  std::vector<Def> defs_;
  std::vector<QCustomPlot*> plots_;
};

}  // namespace accumlab::ui
