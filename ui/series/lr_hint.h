// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include "series/run_data.h"

namespace accumlab::ui {

/// Updates of the accum arm, at least, before lrScalingHint() judges it: early on accum
/// always trails (it has taken K times fewer steps), so only a lag that lasts counts.
inline constexpr size_t kHintMinUpdates = 150;

/// A hint for a live run whose accum arm (K ≥ 4, no LR scaling) lags no-accum at the same
/// learning rate: one update per K micro-batches is K times fewer steps, so at an LR tuned
/// for m it moves slowly. Judged over accum's last kHintMinUpdates / 3 updates against
/// no-accum's over the same samples: when accum's mean loss is above no-accum's by more than
/// 15%, the hint suggests linear or sqrt LR scaling (it changes nothing). Empty otherwise.
QString lrScalingHint(const RunData& run);

}  // namespace accumlab::ui
