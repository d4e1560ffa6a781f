// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/probe_spread_plot.h"

#include <qcustomplot.h>

#include <QObject>
#include <cmath>
#include <vector>

#include "plots/arm_style.h"

namespace accumlab::ui {

namespace {

/// Width of the histogram's column against the panes' (which get 1).
constexpr double kColumnStretch = 0.45;

/// Pixels the histogram keeps however narrow the canvas, so that its two lines of words fit.
constexpr int kMinimumWidth = 130;

/// Mean of the values a histogram counts, from its bin centres.
double binnedMean(const ProbeHistogram& h, const std::vector<int64_t>& counts) {
  const double width = (h.high - h.low) / static_cast<double>(counts.size());
  double n = 0, sum = 0;
  for (size_t b = 0; b < counts.size(); ++b) {
    const double centre = h.low + (static_cast<double>(b) + 0.5) * width;
    n += static_cast<double>(counts[b]);
    sum += static_cast<double>(counts[b]) * centre;
  }
  return n > 0 ? sum / n : kNaN;
}

}  // namespace

QString spreadWords(const ProbeRecord& p) {
  const double sd_micro = std::sqrt(p.var_micro), sd_window = std::sqrt(p.var_window);
  return QObject::tr("spread (SD) of %1 means of %2: %3, of %4: %5 = %3 ÷ √%6 (%7)")
      .arg(p.repeats)
      .arg(p.micro_batch)
      .arg(QString::number(sd_micro, 'g', 2))
      .arg(p.micro_batch * p.accum)
      .arg(QString::number(sd_window, 'g', 2))
      .arg(p.accum)
      .arg(QString::number(sd_micro / std::sqrt(static_cast<double>(p.accum)), 'g', 2));
}

ProbeSpreadPlot::ProbeSpreadPlot(QCustomPlot* plot) : plot_(plot) {}

bool ProbeSpreadPlot::visible() const { return rect_ != nullptr; }

void ProbeSpreadPlot::build() {
  if (rect_) return;
  // The legend strip stays on top, across the whole canvas; the canvas's panes (one column)
  // move into a grid of their own beside the histogram, which gets their full height.
  QCPLayoutGrid* grid = plot_->plotLayout();
  QCPLayoutElement* legend = nullptr;
  std::vector<QCPLayoutElement*> rows;
  QList<double> stretch;
  for (int r = 0; r < grid->rowCount(); ++r) {
    QCPLayoutElement* e = grid->element(r, 0);
    if (qobject_cast<QCPLegend*>(e)) {
      legend = e;
    } else {
      rows.push_back(e);
      stretch << grid->rowStretchFactors().value(r, 1.0);
    }
  }
  for (QCPLayoutElement* e : rows) {
    if (e) grid->take(e);
  }
  if (legend) grid->take(legend);
  grid->simplify();
  body_ = new QCPLayoutGrid;
  panes_ = new QCPLayoutGrid;
  panes_->setRowSpacing(grid->rowSpacing());
  if (legend) {
    grid->addElement(0, 0, legend);
    grid->addElement(1, 0, body_);
    grid->setRowStretchFactors({0.001, 1.0});
  } else {
    grid->addElement(0, 0, body_);
  }
  body_->addElement(0, 0, panes_);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r]) panes_->addElement(static_cast<int>(r), 0, rows[r]);
  }
  if (stretch.size() == panes_->rowCount()) panes_->setRowStretchFactors(stretch);
  rect_ = new QCPAxisRect(plot_);
  rect_->setMinimumSize(kMinimumWidth, 0);
  body_->addElement(0, 1, rect_);
  body_->setColumnStretchFactor(1, kColumnStretch);
  QCPAxis* x = rect_->axis(QCPAxis::atBottom);
  QCPAxis* y = rect_->axis(QCPAxis::atLeft);
  x->ticker()->setTickCount(3);
  y->ticker()->setTickCount(3);
  y->setLabel(QObject::tr("batches"));
  rect_->setRangeDrag(Qt::Orientations());
  rect_->setRangeZoom(Qt::Orientations());
}

QCPGraph* ProbeSpreadPlot::graph(QCPGraph*& slot, const QColor& color, int width) {
  if (slot && plot_->hasPlottable(slot)) return slot;
  slot = plot_->addGraph(rect_->axis(QCPAxis::atBottom), rect_->axis(QCPAxis::atLeft));
  slot->removeFromLegend();
  slot->setPen(QPen(color, width));
  return slot;
}

void ProbeSpreadPlot::hide() {
  if (!rect_) return;
  // The graphs hang on the column's axes: they go first, then the column, and the panes
  // return to the canvas's own grid, under its legend strip.
  for (QCPGraph** g : {&micro_, &window_, &micro_sd_, &window_sd_}) {
    if (*g && plot_->hasPlottable(*g)) plot_->removePlottable(*g);
    *g = nullptr;
  }
  body_->remove(rect_);
  rect_ = nullptr;
  std::vector<QCPLayoutElement*> rows;
  for (int r = 0; r < panes_->rowCount(); ++r) rows.push_back(panes_->element(r, 0));
  const QList<double> stretch = panes_->rowStretchFactors();
  for (QCPLayoutElement* e : rows) {
    if (e) panes_->take(e);
  }
  QCPLayoutGrid* grid = plot_->plotLayout();
  QCPLayoutElement* legend = nullptr;
  for (int r = 0; r < grid->rowCount(); ++r) {
    if (qobject_cast<QCPLegend*>(grid->element(r, 0))) legend = grid->element(r, 0);
  }
  if (legend) grid->take(legend);
  grid->remove(body_);  // with the emptied panes' grid in it
  body_ = nullptr;
  panes_ = nullptr;
  grid->simplify();
  const int first = legend ? 1 : 0;
  if (legend) grid->addElement(0, 0, legend);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r]) grid->addElement(first + static_cast<int>(r), 0, rows[r]);
  }
  QList<double> factors;
  if (legend) factors << 0.001;
  factors << stretch;
  if (factors.size() == grid->rowCount()) grid->setRowStretchFactors(factors);
}

void ProbeSpreadPlot::show(const ProbeRecord& p) {
  const ProbeHistogram& h = p.histogram;
  if (h.empty() || !(h.high > h.low)) {
    hide();
    return;
  }
  build();
  const int bins = static_cast<int>(h.micro.size());
  const double width = (h.high - h.low) / bins;
  QVector<double> x, micro, window;
  for (int b = 0; b < bins; ++b) {
    x.push_back(h.low + (b + 0.5) * width);
    micro.push_back(static_cast<double>(h.micro[static_cast<size_t>(b)]));
    window.push_back(static_cast<double>(h.window[static_cast<size_t>(b)]));
  }
  // The micro-batches' colour is no-accum's (its updates are micro-batches), the windows'
  // is accum's.
  QCPGraph* gm = graph(micro_, armColor(ArmKind::kNoAccum), 1);
  QCPGraph* gw = graph(window_, armColor(ArmKind::kAccum), 2);
  gm->setLineStyle(QCPGraph::lsStepCenter);
  gw->setLineStyle(QCPGraph::lsStepCenter);
  gm->setData(x, micro, true);
  gw->setData(x, window, true);
  double top = 0;
  for (double v : micro) top = std::max(top, v);
  for (double v : window) top = std::max(top, v);
  // Each set's standard deviation as a bar from mean − SD to mean + SD, above its peak.
  const auto sdBar = [&](QCPGraph* g, const std::vector<int64_t>& counts, double var, double y) {
    const double mean = binnedMean(h, counts), sd = std::sqrt(var);
    g->setData(QVector<double>{mean - sd, mean + sd}, QVector<double>{y, y}, true);
    g->setLineStyle(QCPGraph::lsLine);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssPlus, 8));
  };
  sdBar(graph(micro_sd_, armColor(ArmKind::kNoAccum), 2), h.micro, p.var_micro, top * 1.08);
  sdBar(graph(window_sd_, armColor(ArmKind::kAccum), 3), h.window, p.var_window, top * 1.16);
  rect_->axis(QCPAxis::atBottom)->setRange(h.low, h.high);
  rect_->axis(QCPAxis::atLeft)->setRange(0, top * 1.24);
  // Two short lines fit under a narrow histogram; the full sentence is spreadWords(), in the
  // read-out's tooltip and the report.
  const double sd_micro = std::sqrt(p.var_micro), sd_window = std::sqrt(p.var_window);
  rect_->axis(QCPAxis::atBottom)
      ->setLabel(QObject::tr("mean loss of %1, of %2\nSD %3 ≈ %4 ÷ √%5")
                     .arg(p.micro_batch)
                     .arg(p.micro_batch * p.accum)
                     .arg(QString::number(sd_window, 'g', 2))
                     .arg(QString::number(sd_micro, 'g', 2))
                     .arg(p.accum));
}

}  // namespace accumlab::ui
