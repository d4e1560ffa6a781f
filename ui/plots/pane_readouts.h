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

/// What an arm's GFLOP/s are measured against: its FLOPs per sample and measured ceiling
/// (ArmSummary::ceiling_gflop_per_s), from its summary or, while it trains, from what the run
/// told as it started (RunInfo::ceilings). NaN fields where the model does not count FLOPs.
ArmCeiling armCeiling(const RunData& run, const ArmSeries& arm);

/// An arm's achieved GFLOP/s: its summary's (the whole arm, as `run`'s table) or, while it
/// trains, its latest step's samples/s times its FLOPs per sample. NaN without FLOPs.
double armGflops(const RunData& run, const ArmSeries& arm);

/// An arm's GFLOP/s for people: "30.1 GFLOP/s, 56% of the measured ceiling (the first
/// layer's GEMM 32×784 by 784×256 alone: 53.4 GFLOP/s on this machine)", the figure alone
/// without a ceiling, empty without GFLOP/s.
QString gflopsSentence(const RunData& run, const ArmSeries& arm);

/// The throughput pane's read-out: accum's GFLOP/s (else the first right arm's) and its share
/// of the measured ceiling ("GFLOP/s: accum 30.1 (56%)"), every arm's sentence in the tooltip.
/// Empty where the model does not count its FLOPs.
PaneReadout throughputReadout(const RunData& run);

}  // namespace accumlab::ui
