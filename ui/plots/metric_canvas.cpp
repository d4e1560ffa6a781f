// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/metric_canvas.h"

#include <qcustomplot.h>

#include <QAbstractScrollArea>
#include <QHBoxLayout>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "plots/arm_style.h"
#include "plots/compact_ticker.h"
#include "plots/hover_text.h"
#include "plots/log_ticker.h"
#include "plots/plot_fit.h"
#include "plots/series_look.h"

namespace accumlab::ui {

namespace {

/// Share of the data span added around it when the axes are fitted.
constexpr double kLinearMargin = 0.05;
/// Factor around the data span on logarithmic axes.
constexpr double kLogMargin = 1.3;

quint32 graphKey(int source, ArmKind arm, int series) {
  return (static_cast<quint32>(source) << 16) | (static_cast<quint32>(arm) << 8) |
         static_cast<quint32>(series);
}

}  // namespace

void MetricCanvas::Bounds::include(double v) {
  if (!valid) {
    lo = hi = v;
    valid = true;
  } else {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
}

MetricCanvas::MetricCanvas(const CanvasDef& def, QWidget* parent)
    : QWidget(parent), def_(def), plot_(new QCustomPlot(this)) {
  setObjectName("canvas_" + def.id);
  title_ = new QLabel("<b>" + def.title + "</b>", this);
  title_->setObjectName("title");
  readout_ = new QLabel(this);
  readout_->setObjectName("readout");
  readout_->setTextFormat(Qt::RichText);
  // A long read-out must not widen its grid column: it wraps instead, on a line of its own
  // under the title (beside it, a narrow pane left it a column of one word per line).
  QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Minimum);
  policy.setHeightForWidth(true);  // every line of it shows; the plot below gives way
  readout_->setSizePolicy(policy);
  readout_->setWordWrap(true);
  readout_->setMinimumWidth(0);
  readout_->setContentsMargins(6, 0, 4, 0);
  readout_->setHidden(true);
  info_ = new QToolButton(this);
  info_->setText("?");
  info_->setAutoRaise(true);
  info_->setToolTip(def.explanation);
  info_->setAccessibleName(tr("What this plot shows"));
  connect(info_, &QToolButton::clicked, this, [this] {
    QToolTip::showText(info_->mapToGlobal(QPoint(0, info_->height())), def_.explanation, info_);
  });
  title_->setToolTip(def.explanation);

  auto* header = new QHBoxLayout;
  header->setContentsMargins(6, 2, 2, 0);
  header->addWidget(title_);
  header->addStretch(1);
  header->addWidget(info_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(header);
  layout->addWidget(readout_);
  layout->addWidget(plot_, 1);

  plot_->setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);
  plot_->addLayer("faint", plot_->layer("main"), QCustomPlot::limBelow);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // A right-click anywhere on the plot opens the canvas's menu (export, copy), not only on
  // its title strip.
  plot_->setContextMenuPolicy(Qt::NoContextMenu);
  auto* margins = new QCPMarginGroup(plot_);
  for (size_t i = 0; i < def.panes.size(); ++i) {
    QCPAxisRect* rect = i == 0 ? plot_->axisRect() : new QCPAxisRect(plot_);
    if (i > 0) plot_->plotLayout()->addElement(static_cast<int>(i), 0, rect);
    plot_->plotLayout()->setRowStretchFactor(static_cast<int>(i), def.panes[i].stretch);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    rect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    rect->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    y->setLabel(def.panes[i].y_label);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    x->setTicker(QSharedPointer<CompactTicker>(new CompactTicker));
    // The panes share their x-axis: its numbers under the lowest pane are enough, and the
    // height they took above gives a short pane's title room.
    x->setTickLabels(i + 1 == def.panes.size());
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &MetricCanvas::onAxisRangeChanged);
    panes_.push_back(rect);
  }
  y_bounds_.resize(panes_.size());
  marks_.assign(panes_.size(), {});
  // The legend above the panes, never over the data; its entries in reading order.
  plot_->legend->setVisible(true);
  placeLegendAbove(plot_);
  applyAxisScales();
  applyFonts();
  connect(plot_, &QCustomPlot::beforeReplot, this, &MetricCanvas::fitLegend);
  connect(plot_, &QCustomPlot::mousePress, this, [this] { emit userInteracted(); });
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { emit userInteracted(); });
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { showHover(e->pos()); });
  plot_->installEventFilter(this);
}

void MetricCanvas::fitLegend() {
  // Before every replot: the legend's entries a row, axis labels and notes inside their panes
  // (plot_fit.h); then the layout they give, from which as many ticks as their labels leave
  // room for (a pane beside the probe's histogram is ~120 px wide, a sub-pane ~50 px high).
  // Counted from this layout rather than the last, a pane that just shrank gets its ticks now.
  fitPlot(plot_);
  for (const auto phase :
       {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout}) {
    plot_->plotLayout()->update(phase);
  }
  for (QCPAxisRect* rect : panes_) {
    for (QCPAxis* axis : {rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atBottom)}) {
      axis->ticker()->setTickCount(ticksThatFit(axis, 5));
    }
  }
}

void MetricCanvas::applyFonts() {
  // Axis numbers and the legend a little smaller than the title, markers smaller still.
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  for (QCPAxisRect* rect : panes_) {
    for (QCPAxis* axis : {rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atBottom)}) {
      axis->setLabelFont(small);
      axis->setTickLabelFont(small);
    }
  }
  plot_->legend->setFont(small);
  for (int i = 0; i < plot_->legend->itemCount(); ++i) {
    if (QCPAbstractLegendItem* entry = plot_->legend->item(i)) entry->setFont(small);
  }
  for (QCPAbstractItem* item : markers_) {
    if (auto* text = qobject_cast<QCPItemText*>(item)) text->setFont(markerFont());
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QFont MetricCanvas::markerFont() const {
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 0.8);
  return f;
}

void MetricCanvas::changeEvent(QEvent* event) {
  // A larger window font (Presentation mode) reaches the plot's own fonts too.
  if (event->type() == QEvent::FontChange) applyFonts();
  QWidget::changeEvent(event);
}

bool MetricCanvas::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_ && event->type() == QEvent::Leave) QToolTip::hideText();
  if (watched == plot_ && event->type() == QEvent::Wheel) return forwardWheel(event);
  return QWidget::eventFilter(watched, event);
}

bool MetricCanvas::forwardWheel(QEvent* event) {
  auto* wheel = static_cast<QWheelEvent*>(event);
  if (wheel->modifiers() & Qt::ControlModifier) return false;  // the plot zooms
  for (QWidget* w = parentWidget(); w; w = w->parentWidget()) {
    if (auto* scroll = qobject_cast<QAbstractScrollArea*>(w)) {
      QCoreApplication::sendEvent(scroll->verticalScrollBar(), event);
      break;
    }
  }
  return true;  // never zooms without Ctrl
}

bool MetricCanvas::isArmEntry(const QCPGraph* g) const { return g->property("armEntry").toBool(); }

void MetricCanvas::setArmKeyOutside(bool outside) {
  if (outside == arm_key_outside_) return;
  arm_key_outside_ = outside;
  // In the order the lines were made, so that the legend reads as before.
  QList<QCPGraph*> entries;
  for (int i = 0; i < plot_->graphCount(); ++i) {
    if (isArmEntry(plot_->graph(i))) entries << plot_->graph(i);
  }
  if (outside) {
    for (QCPGraph* g : entries) g->removeFromLegend();
  } else {
    // Back in front of the references they came before.
    QList<QCPAbstractPlottable*> rest;
    for (int i = 0; i < plot_->legend->itemCount(); ++i) {
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot_->legend->item(i)))
        rest << item->plottable();
    }
    plot_->legend->clearItems();
    for (QCPGraph* g : entries) g->addToLegend();
    for (QCPAbstractPlottable* p : rest) p->addToLegend();
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool MetricCanvas::paneIsLog(int pane) const {
  const PaneDef& p = def_.panes[static_cast<size_t>(pane)];
  return p.log_y || (p.follows_log && log_toggle_);
}

void MetricCanvas::applyAxisScales() {
  for (size_t i = 0; i < panes_.size(); ++i) {
    QCPAxis* y = panes_[i]->axis(QCPAxis::atLeft);
    if (paneIsLog(static_cast<int>(i))) {
      y->setScaleType(QCPAxis::stLogarithmic);
      auto ticker = QSharedPointer<LogTicker>::create();
      ticker->setMarkedValues(marks_[i]);
      y->setTicker(ticker);
    } else {
      y->setScaleType(QCPAxis::stLinear);
      y->setTicker(QSharedPointer<CompactTicker>(new CompactTicker));
      y->setNumberFormat("g");
      y->setNumberPrecision(4);
    }
  }
}

QCPGraph* MetricCanvas::graphFor(int source, ArmKind arm, int series, const QString& run_label) {
  const quint32 key = graphKey(source, arm, series);
  if (QCPGraph* g = graphs_.value(key)) return g;
  const SeriesDef& def = def_.series[static_cast<size_t>(series)];
  QCPAxisRect* rect = panes_[static_cast<size_t>(def.pane)];
  QCPGraph* g = plot_->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  // Alone, a run's arms have their colours; compared (labelled), each run has its colour and
  // each arm its line style, as the legend says.
  QPen pen = run_label.isEmpty() ? armPen(arm) : comparePen(arm, source);
  styleSeries(g, def, pen);
  QString name = def.look == SeriesLook::kReference ? def.legend : armLegendName(arm);
  if (def.look != SeriesLook::kReference && !def.legend.isEmpty()) name += " " + def.legend;
  // A reference line (theory K, m·K, the process's RSS) looks the same for every run compared:
  // one entry names them all.
  if (!run_label.isEmpty() && def.look != SeriesLook::kReference) name = run_label + ": " + name;
  g->setName(name);
  if (def.look == SeriesLook::kReference && source > 0) g->removeFromLegend();
  // One legend entry per arm: the first pane's main lines and the references; an arm's own
  // line (no series name of its own) is named in the window's key when there is one.
  if (def.look == SeriesLook::kFaint || (def.pane != 0 && def.look != SeriesLook::kReference)) {
    g->removeFromLegend();
  } else if (def.look != SeriesLook::kReference && def.legend.isEmpty()) {
    g->setProperty("armEntry", true);
    if (arm_key_outside_) g->removeFromLegend();
  }
  if (def.look == SeriesLook::kFaint) {
    g->setProperty("faint", true);
    g->setLayer("faint");  // under every arm's smoothed line
  }
  graphs_.insert(key, g);
  return g;
}

void MetricCanvas::addPoints(int source, ArmKind arm, int series, const QString& run_label,
                             const QVector<double>& x, const QVector<double>& y) {
  const SeriesDef& def = def_.series[static_cast<size_t>(series)];
  const bool log = paneIsLog(def.pane);
  QVector<double> keys, values;
  keys.reserve(x.size());
  values.reserve(y.size());
  Bounds& yb = y_bounds_[static_cast<size_t>(def.pane)];
  for (int i = 0; i < x.size() && i < y.size(); ++i) {
    const double v = y[i];
    if (!std::isfinite(v) || (log && v <= 0)) continue;
    keys.push_back(x[i]);
    values.push_back(v);
    x_bounds_.include(x[i]);
    yb.include(v);
  }
  if (keys.isEmpty()) return;
  graphFor(source, arm, series, run_label)->addData(keys, values, true);
}

void MetricCanvas::addIntervalPoints(int source, int pane, const QString& name, const QColor& color,
                                     const QVector<double>& x, const QVector<double>& y,
                                     const QVector<double>& lo, const QVector<double>& hi) {
  const QString key = QString::number(source) + "/" + name;
  QCPGraph* g = interval_graphs_.value(key);
  QCPAxisRect* rect = panes_[static_cast<size_t>(pane)];
  if (!g) {
    g = plot_->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 6));
    g->setPen(QPen(color));
    g->setName(name);
    if (source > 0) g->removeFromLegend();  // compared: the first run's entry names them all
    auto* bars = new QCPErrorBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    bars->setDataPlottable(g);
    bars->setPen(QPen(color, 1.5));
    bars->setWhiskerWidth(6);
    bars->removeFromLegend();
    interval_graphs_.insert(key, g);
    interval_bars_.insert(key, bars);
  }
  QCPErrorBars* bars = interval_bars_.value(key);
  const bool log = paneIsLog(pane);
  Bounds& yb = y_bounds_[static_cast<size_t>(pane)];
  for (int i = 0; i < x.size() && i < y.size() && i < lo.size() && i < hi.size(); ++i) {
    if (!std::isfinite(y[i]) || (log && y[i] <= 0)) continue;
    const double low = std::isfinite(lo[i]) && (!log || lo[i] > 0) ? lo[i] : y[i];
    const double high = std::isfinite(hi[i]) ? hi[i] : y[i];
    g->addData(x[i], y[i]);
    bars->addData(y[i] - low, high - y[i]);
    x_bounds_.include(x[i]);
    yb.include(low);
    yb.include(high);
  }
}

void MetricCanvas::addMarker(double x, const QString& label, const QColor& color) {
  QPen pen(color, 1.0, Qt::DashLine);
  for (QCPAxisRect* rect : panes_) {
    auto* line = new QCPItemLine(plot_);
    line->setClipAxisRect(rect);
    for (QCPItemPosition* p : {line->start, line->end}) {
      p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
      p->setAxisRect(rect);
      p->setTypeX(QCPItemPosition::ptPlotCoords);
      p->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    line->start->setCoords(x, 0);
    line->end->setCoords(x, 1);
    line->setPen(pen);
    markers_.push_back(line);
  }
  if (label.isEmpty()) return;
  auto* text = new QCPItemText(plot_);
  QCPAxisRect* top = panes_.front();
  text->setClipAxisRect(top);
  text->position->setAxes(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
  text->position->setAxisRect(top);
  text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(x, 0.0);
  text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  text->setPadding(QMargins(3, 1, 3, 1));
  text->setText(label);
  text->setColor(color.darker(130));
  text->setBrush(QColor(255, 255, 255, 200));
  text->setFont(markerFont());
  markAsNote(text);
  markers_.push_back(text);
}

void MetricCanvas::clear() {
  plot_->clearPlottables();  // the lines, and the interval bars that hang on markers
  graphs_.clear();
  interval_graphs_.clear();
  interval_bars_.clear();
  for (QCPAbstractItem* item : markers_) plot_->removeItem(item);
  markers_.clear();
  x_bounds_ = Bounds{};
  for (Bounds& b : y_bounds_) b = Bounds{};
  for (int i = 0; i < static_cast<int>(marks_.size()); ++i) {
    markValue(i, std::numeric_limits<double>::quiet_NaN());
  }
  readout_->clear();
  readout_->setHidden(true);
  for (size_t i = 0; i < panes_.size(); ++i) {
    panes_[i]->axis(QCPAxis::atLeft)->setLabel(def_.panes[i].y_label);
  }
}

void MetricCanvas::setXLabel(const QString& label) {
  panes_.back()->axis(QCPAxis::atBottom)->setLabel(label);
}

void MetricCanvas::setYLabel(int pane, const QString& label) {
  QCPAxis* y = panes_[static_cast<size_t>(pane)]->axis(QCPAxis::atLeft);
  if (y->label() == label) return;
  y->setLabel(label);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString MetricCanvas::yLabel(int pane) const {
  return panes_[static_cast<size_t>(pane)]->axis(QCPAxis::atLeft)->label();
}

void MetricCanvas::setLogY(bool log) {
  if (log == log_toggle_) return;
  log_toggle_ = log;
  applyAxisScales();
}

void MetricCanvas::markValues(int pane, const std::vector<double>& values) {
  std::vector<double> marks;
  for (double v : values) {
    if (std::isfinite(v)) marks.push_back(v);
  }
  std::vector<double>& kept = marks_[static_cast<size_t>(pane)];
  if (marks == kept) return;
  kept = marks;
  QCPAxis* y = panes_[static_cast<size_t>(pane)]->axis(QCPAxis::atLeft);
  if (auto ticker = y->ticker().dynamicCast<LogTicker>()) ticker->setMarkedValues(marks);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MetricCanvas::setReadout(const QString& html, const QString& more) {
  readout_->setText(html);
  readout_->setHidden(html.isEmpty());
  // The whole text, where a narrow plot clips it, and what did not fit at all.
  readout_->setToolTip(more.isEmpty() ? html : html + "<br><br>" + more);
}

void MetricCanvas::setFollow(bool follow) { follow_ = follow; }

void MetricCanvas::setXRange(const QCPRange& range) {
  syncing_ = true;
  for (QCPAxisRect* rect : panes_) rect->axis(QCPAxis::atBottom)->setRange(range);
  syncing_ = false;
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MetricCanvas::onAxisRangeChanged(const QCPRange& range) {
  if (syncing_) return;
  // A user drag or zoom on one pane: move the other panes, then the other canvases.
  syncing_ = true;
  for (QCPAxisRect* rect : panes_) rect->axis(QCPAxis::atBottom)->setRange(range);
  syncing_ = false;
  emit xRangeChanged(range);
}

bool MetricCanvas::xBounds(double* lo, double* hi) const {
  if (!x_bounds_.valid) return false;
  *lo = x_bounds_.lo;
  *hi = x_bounds_.hi;
  return true;
}

void MetricCanvas::fitToData() {
  syncing_ = true;
  if (x_bounds_.valid) {
    const double lo = x_bounds_.lo;
    const double hi = x_bounds_.hi > lo ? x_bounds_.hi : lo + 1;
    for (QCPAxisRect* rect : panes_) rect->axis(QCPAxis::atBottom)->setRange(lo, hi);
  }
  for (size_t i = 0; i < panes_.size(); ++i) {
    const Bounds& b = y_bounds_[i];
    if (!b.valid) continue;
    QCPAxis* y = panes_[i]->axis(QCPAxis::atLeft);
    if (paneIsLog(static_cast<int>(i))) {
      const double lo = std::max(b.lo, std::numeric_limits<double>::min());
      const double hi = std::max(b.hi, lo);
      // The same share of the span as a linear axis, in decades, so that a marker at either
      // end stays whole however many decades the pane spans.
      const double margin = std::max(kLogMargin, std::pow(hi / lo, kLinearMargin));
      y->setRange(lo / margin, hi * margin);
    } else {
      const double span = b.hi > b.lo ? b.hi - b.lo : std::max(std::fabs(b.hi), 1.0);
      y->setRange(b.lo - kLinearMargin * span, b.hi + kLinearMargin * span);
    }
  }
  syncing_ = false;
}

void MetricCanvas::refresh() { plot_->replot(QCustomPlot::rpQueuedReplot); }

int MetricCanvas::pointCount() const {
  int n = 0;
  for (QCPGraph* g : graphs_) n += g->dataCount();
  for (QCPGraph* g : interval_graphs_) n += g->dataCount();
  return n;
}

void MetricCanvas::showHover(const QPoint& pos) {
  QCPAxisRect* rect = plot_->axisRectAt(pos);
  if (!rect || !rect->rect().contains(pos)) {
    QToolTip::hideText();
    return;
  }
  QList<QCPGraph*> lines = graphs_.values();
  lines += interval_graphs_.values();
  const QString text =
      hoverText(rect, pos.x(), panes_.back()->axis(QCPAxis::atBottom)->label(), lines);
  QToolTip::showText(plot_->mapToGlobal(pos + QPoint(14, 10)), text, plot_);
}

}  // namespace accumlab::ui
