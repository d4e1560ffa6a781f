// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace accumlab {

/// The app's plots by id: the one list that lessons (which name the plots a class should
/// watch) and the UI (which draws them: ui/plots/plot_catalog.cpp, ui/sweep/sweep_plots.cpp)
/// share. A UI test holds the catalogs to it.

/// The live plots, in the order of the app's plot grid.
inline const std::vector<std::string>& livePlotIds() {
  static const std::vector<std::string> ids = {"loss",       "variance",   "noise",
                                               "validation", "throughput", "equivalence"};
  return ids;
}

/// The plots of the Sweeps tab, in their order there.
inline const std::vector<std::string>& sweepPlotIds() {
  static const std::vector<std::string> ids = {"sweep_variance", "sweep_steps", "sweep_samples",
                                               "sweep_memory", "sweep_accuracy"};
  return ids;
}

}  // namespace accumlab
