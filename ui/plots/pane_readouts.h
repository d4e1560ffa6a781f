// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "series/run_data.h"

namespace accumlab::ui {

/// What the panes say beside their lines (PlotFeed puts it next to each title): one home for
/// the read-outs, so that the feed only draws. GUI thread.

/// A pane's read-out: the line next to its title and what its tooltip adds.
struct PaneReadout {
  QString text;
  QString more;
};

/// The K of the latest windows: the most common count among the last few, so that the short
/// window at the end of a budget or epoch does not count as a change of K.
int64_t currentAccum(const std::vector<StepRecord>& steps);

/// The loss-variance read-out: the pooled same-weights ratio (the headline) and, for the
/// tooltip, the arms' own ratio.
PaneReadout varianceReadout(const RunData& run);

/// The gradient-equivalence read-out: the gradient check's headline, where the trajectories
/// parted, and each wrong recipe's distance from the big batch.
PaneReadout equivalenceReadout(const RunData& run);

/// Text runs: the line each arm wrote at its latest evaluation; empty for other data.
PaneReadout textSampleReadout(const RunData& run);

/// The throughput pane's unit: tokens/s where every run drawn is text, samples/s where none
/// is, both where compared runs mix them.
QString throughputLabel(const std::vector<const RunData*>& runs);

}  // namespace accumlab::ui
