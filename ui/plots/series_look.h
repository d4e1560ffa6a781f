// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPen>

#include "plots/plot_catalog.h"

class QCPGraph;

namespace accumlab::ui {

/// How a line of the catalog is drawn, from its look (plot_catalog.h) and its arm's or run's
/// pen: thin and not antialiased for the noisy raw series, a light tint under the smoothed
/// ones, bold for the smoothed ones (dashed pens stay 1 px: Qt strokes wide dashes ~25×
/// slower), a dark dash-dot step line for references (theory K, m·K), diamonds for markers,
/// and a dot on each evaluation.
void styleSeries(QCPGraph* graph, const SeriesDef& def, QPen pen);

/// `c` as a light tint: an opaque pen draws faster than an alpha one on big series.
QColor faint(const QColor& c);

}  // namespace accumlab::ui
