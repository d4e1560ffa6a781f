// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCPAxis;
class QCPItemText;
class QCustomPlot;

namespace accumlab::ui {

/// Fitting a plot's own drawing to the size it is given, for every plot of the app (the live
/// canvases, the probe's histogram, the sweep plots): whatever the screen, no tick labels run
/// into each other, no legend lies over the data, no axis label or note is cut.

/// Moves `plot`'s legend out of the data, into a strip above its panes (a new first row of
/// its layout). fitPlot() then gives it as many entries a row as the plot's width allows.
void placeLegendAbove(QCustomPlot* plot);

/// The tick count for `axis` at its current length: as many as fit with their labels apart
/// (a ticker places up to 1.5× the count it is asked for), between 1 and `most`.
int ticksThatFit(const QCPAxis* axis, int most = 6);

/// Marks `text` as a note beside a marker line, which fitPlot() keeps inside its pane.
void markAsNote(QCPItemText* text);

/// Before a replot: the legend strip's columns; each axis label elided to its axis (the
/// whole label is kept and shown again when there is room); each note kept inside its pane,
/// turned to the left of its line near the right edge and elided when longer than the pane.
/// Tick counts are the caller's (ticksThatFit). Connect to QCustomPlot::beforeReplot.
void fitPlot(QCustomPlot* plot);

}  // namespace accumlab::ui
