// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep/sweep_plots.h"

#include "plots/log_ticker.h"
#include "plots/plot_fit.h"

#include <qcustomplot.h>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLocale>
#include <QToolButton>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

#include "series/number_text.h"

namespace accumlab::ui {

namespace {

const QColor kPointColor(31, 119, 180);   // reached, at its B's best LR
const QColor kOtherColor(150, 150, 150);  // reached at another LR
const QColor kMissColor(214, 39, 40);     // missed, diverged or failed
const QColor kFitColor(44, 160, 44);
const QColor kTheoryColor(120, 120, 120);
const QColor kNoiseColor(255, 127, 14);  // B_simple

void setLogAxes(QCustomPlot* plot, const QString& x_label, const QString& y_label, bool log_y) {
  plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  plot->xAxis->setTicker(QSharedPointer<LogTicker>(new LogTicker));
  plot->xAxis->setLabel(x_label);
  plot->yAxis->setLabel(y_label);
  if (log_y) {
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setTicker(QSharedPointer<LogTicker>(new LogTicker));
  }
  plot->legend->setVisible(true);
}

QCPGraph* points(QCustomPlot* plot, const QString& name, const QColor& color,
                 QCPScatterStyle::ScatterShape shape, const QVector<double>& x,
                 const QVector<double>& y) {
  QCPGraph* g = plot->addGraph();
  g->setName(name);
  g->setLineStyle(QCPGraph::lsNone);
  const bool open = shape == QCPScatterStyle::ssCircle;
  g->setScatterStyle(QCPScatterStyle(shape, color, open ? Qt::white : color, 8));
  g->setPen(QPen(color, 1.5));
  g->setData(x, y);
  if (x.isEmpty()) g->removeFromLegend();
  return g;
}

QCPGraph* curve(QCustomPlot* plot, const QString& name, const QColor& color, Qt::PenStyle style,
                double x0, double x1, const std::function<double(double)>& f) {
  QVector<double> x, y;
  constexpr int kSteps = 80;
  for (int i = 0; i <= kSteps; ++i) {
    const double b = x0 * std::pow(x1 / x0, static_cast<double>(i) / kSteps);
    const double v = f(b);
    if (std::isfinite(v) && v > 0) {
      x << b;
      y << v;
    }
  }
  QCPGraph* g = plot->addGraph();
  g->setName(name);
  g->setPen(QPen(color, 1.5, style));
  g->setData(x, y);
  return g;
}

void verticalLine(QCustomPlot* plot, double x, const QColor& color, const QString& label,
                  double label_y) {
  if (!std::isfinite(x) || x <= 0) return;
  auto* line = new QCPItemStraightLine(plot);
  line->setPen(QPen(color, 1.2, Qt::DashLine));
  line->point1->setCoords(x, 1);
  line->point2->setCoords(x, 10);
  auto* text = new QCPItemText(plot);
  text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(x * 1.05, label_y);  // 0: top of the plot, 1: bottom
  text->setText(label);
  text->setColor(color);
  text->setFont(QFont(plot->font().family(), 8));
}

/// Fits the axes to what the graphs hold, with room on log axes.
void rescale(QCustomPlot* plot) {
  plot->rescaleAxes();
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    const QCPRange r = axis->range();
    if (axis->scaleType() == QCPAxis::stLogarithmic && r.lower > 0) {
      axis->setRange(r.lower / 1.5, r.upper * 1.5);
    } else {
      const double pad = std::max(1e-9, (r.upper - r.lower) * 0.08);
      axis->setRange(r.lower - pad, r.upper + pad);
    }
  }
}

}  // namespace

std::vector<SweepPlots::Def> SweepPlots::defs() {
  return {
      {"sweep_variance", tr("Loss variance against B"),
       tr("The variance of the per-update loss (detrended, over the last updates before the "
          "target) at each effective batch B. Averaging B independent samples divides it by B, "
          "so on log-log axes the points fall on a line of slope −1 (grey); the green line is "
          "the fitted slope.")},
      {"sweep_steps", tr("Steps to target against B"),
       tr("Optimizer steps each B needed to reach the target. While the dashed line (perfect "
          "scaling, S = E_min/B) holds, doubling B halves the steps; past the critical batch "
          "B_crit = E_min/S_min the steps level off at S_min and more batch buys only compute. "
          "The orange line is B_simple, the gradient noise scale the runs measured, which "
          "predicts B_crit (McCandlish et al. 2018). Open red circles at the top: points that "
          "did not reach the target.")},
      {"sweep_samples", tr("Samples to target against B"),
       tr("Samples each B needed: flat (E_min) while scaling is perfect, then growing like "
          "S_min·B — the compute a larger batch wastes.")},
      {"sweep_memory", tr("Memory and speed against m"),
       tr("Accumulation's trade-off at a fixed effective batch B = m·K: a smaller micro-batch m "
          "(with K = B/m) holds fewer activations at once — less peak tensor memory (blue) — "
          "but computes in smaller pieces, so fewer samples per second (orange). The update is "
          "the same. Needs several m at one B: e.g. B = 256 and m = 8, 16, 32 in the fields "
          "above.")},
      {"sweep_accuracy", tr("Validation accuracy against B"),
       tr("The validation accuracy each point ended with (at the target, or at the end of its "
          "budget when it missed).")},
  };
}

QString SweepPlots::title(const QString& id) {
  for (const Def& def : defs()) {
    if (def.id == id) return def.title;
  }
  return QString();
}

SweepPlots::SweepPlots(QWidget* parent) : QWidget(parent), defs_(defs()) {
  auto* grid = new QGridLayout(this);
  for (size_t i = 0; i < defs_.size(); ++i) {
    auto* plot = new QCustomPlot(this);
    plot->setObjectName(defs_[i].id);
    plot->setMinimumSize(220, 230);  // legend, axes and points readable; the tab scrolls
    plot->setToolTip(defs_[i].explanation);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(plot, defs_[i].title, QFont(font().family(), 10, QFont::Bold)));
    // The legend in a strip under the title, never over the points; ticks, labels and
    // notes fitted to the plot's size before each replot (plot_fit.h).
    plot->legend->setFont(QFont(font().family(), 8));
    placeLegendAbove(plot);
    connect(plot, &QCustomPlot::beforeReplot, plot, [plot] {
      for (QCPAxis* axis : plot->axisRect()->axes())
        axis->ticker()->setTickCount(ticksThatFit(axis, 5));
      fitPlot(plot);
    });
    // "?" in the plot's corner, as on the live plots: what it shows, in plain words.
    auto* info = new QToolButton(plot);
    info->setText("?");
    info->setAutoRaise(true);
    info->setToolTip(defs_[i].explanation);
    info->setAccessibleName(tr("What this plot shows"));
    const QString explanation = defs_[i].explanation;
    connect(info, &QToolButton::clicked, info, [info, explanation] {
      QToolTip::showText(info->mapToGlobal(QPoint(0, info->height())), explanation, info);
    });
    auto* corner = new QHBoxLayout(plot);
    corner->setContentsMargins(0, 2, 4, 0);
    corner->addStretch(1);
    corner->addWidget(info, 0, Qt::AlignTop);
    grid->addWidget(plot, static_cast<int>(i / 2), static_cast<int>(i % 2));
    plots_.push_back(plot);
  }
}

void SweepPlots::setSweep(const SweepDetail& sweep, const SweepAnalysis& a) {
  for (QCustomPlot* p : plots_) {
    p->clearGraphs();
    p->clearItems();
    p->yAxis2->setVisible(false);
  }
  const std::vector<int64_t>& best = a.best_points;
  auto isBest = [&best](const SweepPoint& p) {
    return std::find(best.begin(), best.end(), p.index) != best.end();
  };
  double b_lo = 0, b_hi = 0;
  double top_steps = 0, top_samples = 0;
  for (const SweepPoint& p : sweep.points) {
    const double b = static_cast<double>(p.effectiveBatch());
    b_lo = b_lo == 0 ? b : std::min(b_lo, b);
    b_hi = std::max(b_hi, b);
    if (std::isfinite(p.steps_to_target)) top_steps = std::max(top_steps, p.steps_to_target);
    if (std::isfinite(p.samples_to_target))
      top_samples = std::max(top_samples, p.samples_to_target);
  }
  if (b_lo <= 0) return;
  const double x0 = b_lo / 1.5, x1 = b_hi * 1.5;

  // 1. Loss variance.
  QCustomPlot* var = plots_[0];
  setLogAxes(var, tr("effective batch B = m·K"), tr("per-update loss variance"), true);
  QVector<double> vx, vy;
  for (const SweepPoint& p : sweep.points) {
    if ((p.status == SweepStatus::kReached || p.status == SweepStatus::kMissed) &&
        p.loss_variance > 0 && (isBest(p) || best.empty())) {
      vx << static_cast<double>(p.effectiveBatch());
      vy << p.loss_variance;
    }
  }
  points(var, tr("measured"), kPointColor, QCPScatterStyle::ssDisc, vx, vy);
  if (a.variance_slope) {
    const SlopeFit f = *a.variance_slope;
    curve(var,
          tr("fit: slope %1 [%2, %3]")
              .arg(numberText(f.slope, 3))
              .arg(numberText(f.ci_low, 3))
              .arg(numberText(f.ci_high, 3)),
          kFitColor, Qt::SolidLine, x0, x1,
          [f](double b) { return std::exp(f.intercept) * std::pow(b, f.slope); });
    const double anchor = std::exp(f.intercept) * std::pow(b_lo, f.slope) * b_lo;
    curve(var, tr("theory: ∝ 1/B"), kTheoryColor, Qt::DashLine, x0, x1,
          [anchor](double b) { return anchor / b; });
  }

  // 2. Steps and 3. samples to target.
  QCustomPlot* steps = plots_[1];
  QCustomPlot* samples = plots_[2];
  setLogAxes(steps, tr("effective batch B = m·K"), tr("steps to target"), true);
  setLogAxes(samples, tr("effective batch B = m·K"), tr("samples to target"), true);
  QVector<double> bx, by, bs, ox, oy, os, mx, my, ms;
  for (const SweepPoint& p : sweep.points) {
    const double b = static_cast<double>(p.effectiveBatch());
    if (p.status == SweepStatus::kReached) {
      (isBest(p) ? bx : ox) << b;
      (isBest(p) ? by : oy) << p.steps_to_target;
      (isBest(p) ? bs : os) << p.samples_to_target;
    } else if (p.done()) {
      mx << b;
      my << (top_steps > 0 ? top_steps * 1.3 : 1.0);
      ms << (top_samples > 0 ? top_samples * 1.3 : 1.0);
    }
  }
  points(steps, tr("fewest steps at its B"), kPointColor, QCPScatterStyle::ssDisc, bx, by);
  points(steps, tr("another LR or m"), kOtherColor, QCPScatterStyle::ssDisc, ox, oy);
  points(steps, tr("did not reach it"), kMissColor, QCPScatterStyle::ssCircle, mx, my);
  points(samples, tr("fewest steps at its B"), kPointColor, QCPScatterStyle::ssDisc, bx, bs);
  points(samples, tr("another LR or m"), kOtherColor, QCPScatterStyle::ssDisc, ox, os);
  points(samples, tr("did not reach it"), kMissColor, QCPScatterStyle::ssCircle, mx, ms);
  if (a.steps_fit) {
    const StepsFit f = *a.steps_fit;
    curve(steps, tr("fit: S_min + E_min/B"), kFitColor, Qt::SolidLine, x0, x1,
          [f](double b) { return stepsAt(f, b); });
    curve(steps, tr("perfect: E_min/B"), kTheoryColor, Qt::DashLine, x0, x1,
          [f](double b) { return f.e_min / b; });
    curve(steps, tr("S_min = %1").arg(numberText(f.s_min, 3)), kTheoryColor, Qt::DotLine, x0, x1,
          [f](double) { return f.s_min; });
    curve(samples, tr("fit: E_min + S_min·B"), kFitColor, Qt::SolidLine, x0, x1,
          [f](double b) { return f.e_min + f.s_min * b; });
    verticalLine(steps, f.b_crit, kFitColor, tr("B_crit %1").arg(numberText(f.b_crit, 3)), 0.04);
    verticalLine(samples, f.b_crit, kFitColor, tr("B_crit %1").arg(numberText(f.b_crit, 3)), 0.96);
  }
  verticalLine(steps, a.b_simple, kNoiseColor, tr("B_simple %1").arg(numberText(a.b_simple, 3)),
               0.85);

  // 4. Memory and speed against m at the B with the most micro-batch sizes.
  QCustomPlot* mem = plots_[3];
  std::map<int64_t, std::map<int64_t, const SweepPoint*>> by_b;  // B → m → a finished point
  for (const SweepPoint& p : sweep.points) {
    if ((p.status == SweepStatus::kReached || p.status == SweepStatus::kMissed) &&
        p.peak_tensor_bytes > 0) {
      by_b[p.effectiveBatch()].emplace(p.micro_batch, &p);
    }
  }
  int64_t fixed_b = 0;
  size_t most = 1;
  for (const auto& [b, ms] : by_b) {
    if (ms.size() > most) {
      most = ms.size();
      fixed_b = b;
    }
  }
  mem->xAxis->setScaleType(QCPAxis::stLogarithmic);
  mem->xAxis->setTicker(QSharedPointer<LogTicker>(new LogTicker));
  mem->xAxis->setLabel(tr("micro-batch m (K = B/m)"));
  mem->yAxis->setLabel(tr("peak tensor memory (MiB)"));
  mem->yAxis2->setVisible(true);
  mem->yAxis2->setLabel(tr("samples/s"));
  mem->yAxis->setLabelColor(kPointColor);
  mem->yAxis2->setLabelColor(kNoiseColor);
  if (fixed_b > 0) {
    QVector<double> m, mib, speed;
    for (const auto& [micro, p] : by_b[fixed_b]) {
      m << static_cast<double>(micro);
      mib << static_cast<double>(p->peak_tensor_bytes) / 1048576.0;
      speed << p->samples_per_s;
    }
    QCPGraph* g = points(mem, tr("peak tensors"), kPointColor, QCPScatterStyle::ssDisc, m, mib);
    g->setLineStyle(QCPGraph::lsLine);
    QCPGraph* h = mem->addGraph(mem->xAxis, mem->yAxis2);
    h->setName(tr("samples/s"));
    h->setPen(QPen(kNoiseColor, 1.5));
    h->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, kNoiseColor, kNoiseColor, 7));
    h->setData(m, speed);
    mem->legend->setVisible(true);
    mem->rescaleAxes();
    mem->xAxis->setRange(m.front() / 1.5, m.back() * 1.5);
    for (QCPAxis* axis : {mem->yAxis, mem->yAxis2}) {
      const QCPRange r = axis->range();
      const double pad = std::max(1e-9, (r.upper - r.lower) * 0.15);
      axis->setRange(std::max(0.0, r.lower - pad), r.upper + pad);
    }
    auto* label = new QCPItemText(mem);
    label->position->setType(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(0.98, 0.04);
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label->setText(tr("B = %1").arg(fixed_b));
  } else {
    auto* label = new QCPItemText(mem);
    label->position->setType(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(0.5, 0.5);
    label->setText(tr("No B was trained with several m:\ntry B = 256, m = 8, 16, 32"));
    mem->xAxis->setRange(1, 100);
  }

  // 5. Validation accuracy.
  QCustomPlot* acc = plots_[4];
  setLogAxes(acc, tr("effective batch B = m·K"), tr("validation accuracy"), false);
  QVector<double> ax, ay, aox, aoy;
  for (const SweepPoint& p : sweep.points) {
    if (!std::isfinite(p.val_accuracy)) continue;
    (p.status == SweepStatus::kReached ? ax : aox) << static_cast<double>(p.effectiveBatch());
    (p.status == SweepStatus::kReached ? ay : aoy) << p.val_accuracy;
  }
  points(acc, tr("reached the target"), kPointColor, QCPScatterStyle::ssDisc, ax, ay);
  points(acc, tr("did not reach it"), kMissColor, QCPScatterStyle::ssCircle, aox, aoy);

  for (QCustomPlot* p : {var, steps, samples, acc}) {
    rescale(p);
    p->xAxis->setRange(x0, x1);
  }
  acc->yAxis->setRange(0.0, 1.02);  // a fraction: the whole scale, so differences are honest
  for (QCustomPlot* p : plots_) p->replot();
}

std::vector<PlotImage> SweepPlots::capture() const {
  std::vector<PlotImage> images;
  for (size_t i = 0; i < plots_.size(); ++i) {
    PlotImage img;
    img.id = defs_[i].id;
    img.title = defs_[i].title;
    img.explanation = defs_[i].explanation;
    QBuffer buffer(&img.png);
    buffer.open(QIODevice::WriteOnly);
    plots_[i]->toPixmap(kExportWidth, kExportHeight).save(&buffer, "PNG");
    images.push_back(std::move(img));
  }
  return images;
}

}  // namespace accumlab::ui
