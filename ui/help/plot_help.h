// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

class QDialog;
class QWidget;

namespace accumlab::ui {

class MetricCanvas;

/// Help → What the plots show: every plot's title and explanation in a scrolling text view,
/// sized to fit the screen (at most 80% of its height), non-modal. Returns the dialog, which
/// deletes itself when closed. GUI thread.
QDialog* showPlotHelp(QWidget* parent, const std::vector<MetricCanvas*>& canvases);

}  // namespace accumlab::ui
