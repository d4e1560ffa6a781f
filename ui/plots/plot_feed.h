// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <map>
#include <memory>
#include <vector>

#include "plots/plot_catalog.h"
#include "series/run_data.h"

namespace accumlab::ui {

class MetricCanvas;
class ProbeSpreadPlot;

/// Draws runs into the catalog's canvases: each run's lines, its event markers and probes,
/// and the read-outs next to the titles. Appends only what a run gained since it was last
/// drawn. No widget of its own: PlotGrid feeds the canvases on screen with it, and
/// renderPlots() feeds off-screen canvases for a report. GUI thread.
class PlotFeed {
 public:
  /// `canvases` in catalog order; not owned, they must outlive the feed.
  explicit PlotFeed(std::vector<MetricCanvas*> canvases);
  ~PlotFeed();

  /// Clears the canvases and draws `runs` (not owned; the first is the one the read-outs
  /// describe) from their start, on the x-axis `x_mode` with smoothing `smoothing`.
  void draw(std::vector<const RunData*> runs, XAxisMode x_mode, double smoothing);
  /// Draws what run `source` of draw()'s runs gained since it was last drawn.
  void drawNew(int source);
  /// Fits the canvases that follow their data to the union of their x spans, and redraws.
  void refresh();
  /// Where `e` sits on the current x-axis of `run`'s plots.
  double eventX(const RunData& run, const EventRecord& e) const;

 private:
  struct SourceState;
  void addEventMarkers(int source, size_t from);
  void addProbes(int source, size_t from);
  void updateReadouts();
  QString sourceLabel(int source) const;

  std::vector<MetricCanvas*> canvases_;
  std::vector<const RunData*> sources_;
  std::vector<SourceState> state_;
  /// The latest probe's histogram beside each loss-variance canvas, by canvas.
  std::map<MetricCanvas*, std::unique_ptr<ProbeSpreadPlot>> histograms_;
  XAxisMode x_mode_ = XAxisMode::kSamples;
  double smoothing_ = 0;
};

}  // namespace accumlab::ui
