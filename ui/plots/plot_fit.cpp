// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plot_fit.h"

#include <qcustomplot.h>

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <vector>

namespace accumlab::ui {

namespace {

/// Property of an axis that keeps its label as set, when the axis shows it elided.
constexpr char kFullLabel[] = "accumlabFullLabel";
/// Property of a text item that keeps its text as set, when it shows it elided.
constexpr char kFullText[] = "accumlabFullText";
/// Property of a text item that is a note beside a marker line (markAsNote).
constexpr char kNote[] = "accumlabNote";

/// The row of `grid` that holds `element` in its first column, or -1.
int rowOf(QCPLayoutGrid* grid, QCPLayoutElement* element) {
  for (int r = 0; r < grid->rowCount(); ++r) {
    if (grid->element(r, 0) == element) return r;
  }
  return -1;
}

/// `legend`'s entries `columns` a row, in their order (QCustomPlot's own rearranging would
/// shuffle them).
void setColumns(QCPLegend* legend, int columns) {
  if (legend->wrap() == columns) return;
  std::vector<QCPAbstractPlottable*> order;
  for (int i = 0; i < legend->itemCount(); ++i) {
    if (auto* entry = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
      order.push_back(entry->plottable());
  }
  legend->clearItems();
  legend->setWrap(columns);
  for (QCPAbstractPlottable* p : order) p->addToLegend(legend);
}

/// The most columns whose entries fit `room` side by side: each column as wide as its widest
/// entry (entries fill rows first).
int columnsThatFit(const std::vector<double>& widths, double room, double spacing) {
  const int n = static_cast<int>(widths.size());
  for (int columns = n; columns > 1; --columns) {
    std::vector<double> widest(static_cast<size_t>(columns), 0.0);
    for (int i = 0; i < n; ++i) {
      double& w = widest[static_cast<size_t>(i % columns)];
      w = std::max(w, widths[static_cast<size_t>(i)]);
    }
    double total = spacing * (columns - 1);
    for (double w : widest) total += w;
    if (total <= room) return columns;
  }
  return 1;
}

void fitLegendStrip(QCustomPlot* plot) {
  QCPLegend* legend = plot->legend;
  if (!legend || !legend->property("accumlabStrip").toBool()) return;
  std::vector<double> widths;
  for (int i = 0; i < legend->itemCount(); ++i) {
    if (QCPAbstractLegendItem* entry = legend->item(i)) {
      widths.push_back(entry->minimumOuterSizeHint().width());
    }
  }
  legend->setVisible(!widths.empty());
  // An empty legend leaves the layout: a layout grid caps each column at its elements' largest
  // size, which for a grid of no entries is its margins, and the panes below shrank to it.
  QCPLayoutGrid* grid = plot->plotLayout();
  const bool placed = rowOf(grid, legend) >= 0;
  if (widths.empty()) {
    if (placed && grid->take(legend)) grid->simplify();
    return;
  }
  if (!placed) {
    const int row = std::max(0, rowOf(grid, plot->axisRect()));
    grid->insertRow(row);
    grid->addElement(row, 0, legend);
    grid->setRowStretchFactor(row, 0.001);
  }
  const QMargins m = legend->margins();
  const double room = plot->width() - m.left() - m.right();
  setColumns(legend, columnsThatFit(widths, room, legend->columnSpacing()));
}

/// The axis label elided to the axis's length; the whole label stays in a property.
void fitAxisLabel(QCPAxis* axis) {
  QString full = axis->property(kFullLabel).toString();
  if (axis->property(kFullLabel).isNull() ||
      (axis->label() != full && !axis->label().endsWith(QChar(u'…')))) {
    full = axis->label();  // set anew since it was last elided
    axis->setProperty(kFullLabel, full);
  }
  if (full.isEmpty() || !axis->visible()) return;
  const QCPAxisRect* rect = axis->axisRect();
  const int length = axis->orientation() == Qt::Horizontal ? rect->width() : rect->height();
  if (length <= 0) return;
  const QFontMetricsF fm(axis->labelFont());
  QStringList lines = full.split('\n');
  for (QString& line : lines) line = fm.elidedText(line, Qt::ElideRight, length);
  const QString shown = lines.join('\n');
  if (shown != axis->label()) axis->setLabel(shown);
}

/// A note beside a marker line stays inside its pane: it turns to the left of its line near
/// the right edge, and is elided when longer than the pane.
void fitNote(QCPItemText* text) {
  QString full = text->property(kFullText).toString();
  if (text->property(kFullText).isNull() ||
      (text->text() != full && !text->text().endsWith(QChar(u'…')))) {
    full = text->text();
    text->setProperty(kFullText, full);
  }
  QCPAxisRect* rect = text->clipAxisRect();
  if (!rect || full.isEmpty() || text->rotation() != 0) return;
  const QRect pane = rect->rect();
  const QMargins pad = text->padding();
  const QFontMetricsF fm(text->font());
  const double x = text->position->pixelPosition().x();
  // Right of its line where it fits, else left of it, else on the side with more room.
  const double right = pane.right() - x, left = x - pane.left();
  const double whole = fm.horizontalAdvance(full) + pad.left() + pad.right() + 2;
  const bool on_left = whole > right && (whole <= left || left > right);
  const double room = (on_left ? left : right) - pad.left() - pad.right() - 2;
  const QString shown = fm.elidedText(full, Qt::ElideRight, std::max(0.0, room));
  if (shown != text->text()) text->setText(shown);
  const Qt::Alignment vertical = text->positionAlignment() & Qt::AlignVertical_Mask;
  text->setPositionAlignment(vertical | (on_left ? Qt::AlignRight : Qt::AlignLeft));
}

}  // namespace

void markAsNote(QCPItemText* text) { text->setProperty(kNote, true); }

void placeLegendAbove(QCustomPlot* plot) {
  QCPLegend* legend = plot->legend;
  if (!legend || legend->property("accumlabStrip").toBool()) return;
  for (QCPAxisRect* rect : plot->axisRects()) {
    if (rect->insetLayout()->take(legend)) {
      rect->insetLayout()->simplify();
      break;
    }
  }
  QCPLayoutGrid* grid = plot->plotLayout();
  const int row = std::max(0, rowOf(grid, plot->axisRect()));
  grid->insertRow(row);
  grid->addElement(row, 0, legend);
  grid->setRowStretchFactor(row, 0.001);
  legend->setBorderPen(Qt::NoPen);
  legend->setBrush(Qt::NoBrush);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setMargins(QMargins(6, 2, 6, 0));
  legend->setColumnSpacing(10);
  legend->setRowSpacing(0);
  legend->setProperty("accumlabStrip", true);
}

int ticksThatFit(const QCPAxis* axis, int most) {
  const QCPAxisRect* rect = axis->axisRect();
  const bool horizontal = axis->orientation() == Qt::Horizontal;
  const double length = horizontal ? rect->width() : rect->height();
  if (length <= 0) return most;
  const QFontMetricsF fm(axis->tickLabelFont());
  double extent = horizontal ? fm.horizontalAdvance(QStringLiteral("0000")) : fm.height();
  if (horizontal) {
    for (const QString& label : axis->tickVectorLabels())
      extent = std::max(extent, fm.horizontalAdvance(label));
  }
  extent += horizontal ? 12 : 8;  // the gap a reader needs between two labels
  const int n = static_cast<int>(std::floor(length / extent / 1.5));
  return std::clamp(n, 1, most);
}

void fitPlot(QCustomPlot* plot) {
  fitLegendStrip(plot);
  for (QCPAxisRect* rect : plot->axisRects()) {
    for (QCPAxis* axis : rect->axes()) fitAxisLabel(axis);
  }
  for (int i = 0; i < plot->itemCount(); ++i) {
    auto* text = qobject_cast<QCPItemText*>(plot->item(i));
    if (text && text->property(kNote).toBool()) fitNote(text);
  }
}

}  // namespace accumlab::ui
