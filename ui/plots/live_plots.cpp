#include "plots/live_plots.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>
#include <tuple>

#include "accumlab/smoothing.h"
#include "accumlab/variance_ratio.h"
#include "plots/arm_style.h"
#include "plots/metric_canvas.h"
#include "series/live_run.h"

namespace accumlab::ui {

namespace {
/// Columns of the plot grid.
constexpr int kGridColumns = 3;
/// Below this width the grid has two columns (three rows): a narrow screen, e.g. 1024×768
/// with the experiment panel open, keeps plots wide enough to read.
constexpr int kThreeColumnsFrom = 900;
/// The smallest a plot may become.
constexpr QSize kMinCanvas(200, 140);
/// Colour of the markers of slider changes.
constexpr QRgb kSliderMarkerColor = 0x7B5EA7;
/// Slider steps per unit of smoothing.
constexpr int kSmoothingSteps = 100;
/// The largest smoothing the slider offers.
constexpr double kMaxSmoothing = 0.99;

QString ratioText(double r) { return QString::number(r, r < 1 ? 'g' : 'f', r < 1 ? 2 : 1); }

QString intervalText(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return QString();
  return QString("[%1, %2]").arg(ratioText(lo), ratioText(hi));
}

double lastFinite(const std::vector<StepRecord>& steps, double StepRecord::*field) {
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (std::isfinite((*it).*field)) return (*it).*field;
  }
  return kNaN;
}
/// The K of the latest windows: the most common count among the last few, so that the short
/// window at the end of a budget or epoch does not count as a change of K.
int64_t currentAccum(const std::vector<StepRecord>& steps) {
  constexpr size_t kRecent = 5;
  std::map<int64_t, int> counts;
  for (size_t i = steps.size() > kRecent ? steps.size() - kRecent : 0; i < steps.size(); ++i) {
    ++counts[steps[i].accum];
  }
  int64_t best = 0;
  int best_count = 0;
  for (auto it = counts.rbegin(); it != counts.rend(); ++it) {  // ties: the larger K
    if (it->second > best_count) {
      best = it->first;
      best_count = it->second;
    }
  }
  return best;
}
}  // namespace

/// How far each arm of one source has been plotted, and its smoothing state.
struct LivePlots::SourceState {
  std::map<ArmKind, size_t> steps_done;
  std::map<ArmKind, size_t> evals_done;
  size_t events_done = 0;
  size_t probes_done = 0;
  std::map<std::tuple<ArmKind, int, int>, DebiasedEma> emas;  ///< (arm, canvas, series)
};

LivePlots::LivePlots(QWidget* parent) : QWidget(parent) {
  x_combo_ = new QComboBox(this);
  x_combo_->setObjectName("xAxisMode");
  x_combo_->addItem(tr("samples seen"), static_cast<int>(XAxisMode::kSamples));
  x_combo_->addItem(tr("optimizer steps"), static_cast<int>(XAxisMode::kSteps));
  x_combo_->addItem(tr("wall time"), static_cast<int>(XAxisMode::kWallTime));
  x_combo_->setToolTip(tr("What the x-axis of every plot counts"));
  smoothing_slider_ = new QSlider(Qt::Horizontal, this);
  smoothing_slider_->setObjectName("smoothing");
  smoothing_slider_->setRange(0, static_cast<int>(kMaxSmoothing * kSmoothingSteps));
  smoothing_slider_->setValue(static_cast<int>(smoothing_ * kSmoothingSteps));
  smoothing_slider_->setMaximumWidth(160);
  smoothing_slider_->setToolTip(
      tr("Smoothing s of the bold loss lines (TensorBoard's debiased moving average)"));
  smoothing_label_ = new QLabel(QString::number(smoothing_, 'f', 2), this);
  log_check_ = new QCheckBox(tr("log y"), this);
  log_check_->setObjectName("logY");
  log_check_->setToolTip(tr("Logarithmic y-axis for the loss plots"));
  auto* reset = new QPushButton(tr("Reset view"), this);
  reset->setToolTip(tr("Fit every plot to its data and follow new points again"));

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(6, 4, 6, 0);
  bar->addWidget(new QLabel(tr("x-axis:"), this));
  bar->addWidget(x_combo_);
  bar->addSpacing(16);
  bar->addWidget(new QLabel(tr("smoothing:"), this));
  bar->addWidget(smoothing_slider_);
  bar->addWidget(smoothing_label_);
  bar->addSpacing(16);
  bar->addWidget(log_check_);
  bar->addStretch(1);
  bar->addWidget(reset);

  grid_ = new QGridLayout;
  grid_->setContentsMargins(2, 2, 2, 2);
  grid_->setSpacing(4);
  const auto& catalog = plotCatalog();
  for (size_t i = 0; i < catalog.size(); ++i) {
    auto* canvas = new MetricCanvas(catalog[i], this);
    canvas->setMinimumSize(kMinCanvas);
    canvas->setXLabel(xAxisLabel(x_mode_));
    canvases_.push_back(canvas);
    connect(canvas, &MetricCanvas::xRangeChanged, this, [this, canvas](const QCPRange& r) {
      for (MetricCanvas* other : canvases_) {
        other->setFollow(false);
        if (other != canvas) other->setXRange(r);
      }
    });
    connect(canvas, &MetricCanvas::userInteracted, this, [this] {
      for (MetricCanvas* c : canvases_) c->setFollow(false);
    });
  }
  setShownPlots({});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addLayout(grid_, 1);

  connect(x_combo_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int) {
    setXAxisMode(static_cast<XAxisMode>(x_combo_->currentData().toInt()));
  });
  connect(smoothing_slider_, &QSlider::valueChanged, this,
          [this](int v) { setSmoothing(static_cast<double>(v) / kSmoothingSteps); });
  connect(log_check_, &QCheckBox::toggled, this, &LivePlots::setLogY);
  connect(reset, &QPushButton::clicked, this, &LivePlots::resetView);
}

LivePlots::~LivePlots() = default;

void LivePlots::setLiveRun(const LiveRun* live) {
  if (live_) disconnect(live_, nullptr, this, nullptr);
  live_ = live;
  if (!live_) return;
  connect(live_, &LiveRun::begun, this, &LivePlots::showLive);
  connect(live_, &LiveRun::appended, this, [this] {
    if (!showingLive()) return;  // stored runs are on screen
    feedNew(0);
    refresh();
  });
}

bool LivePlots::showingLive() const {
  return live_ && sources_.size() == 1 && sources_.front() == &live_->data();
}

void LivePlots::showLive() {
  stored_.clear();
  sources_ = {&live_->data()};
  rebuild();
}

void LivePlots::showRuns(std::vector<RunData> runs) {
  stored_ = std::move(runs);
  sources_.clear();
  for (const RunData& run : stored_) sources_.push_back(&run);
  for (MetricCanvas* c : canvases_) c->setFollow(true);
  rebuild();
}

void LivePlots::setXAxisMode(XAxisMode mode) {
  const int index = x_combo_->findData(static_cast<int>(mode));
  if (x_combo_->currentIndex() != index) x_combo_->setCurrentIndex(index);  // re-enters here
  if (mode == x_mode_) return;
  x_mode_ = mode;
  for (MetricCanvas* c : canvases_) {
    c->setXLabel(xAxisLabel(mode));
    c->setFollow(true);  // the old x range means nothing on the new axis
  }
  rebuild();
  emit viewOptionsChanged();
}

void LivePlots::setSmoothing(double s) {
  s = std::clamp(s, 0.0, kMaxSmoothing);
  const int pos = static_cast<int>(std::lround(s * kSmoothingSteps));
  if (smoothing_slider_->value() != pos) smoothing_slider_->setValue(pos);
  if (std::fabs(s - smoothing_) < 1e-9) return;
  smoothing_ = s;
  smoothing_label_->setText(QString::number(s, 'f', 2));
  rebuild();
  emit viewOptionsChanged();
}

void LivePlots::setLogY(bool log) {
  if (log_check_->isChecked() != log) log_check_->setChecked(log);
  if (log == log_y_) return;
  log_y_ = log;
  for (MetricCanvas* c : canvases_) c->setLogY(log);
  rebuild();  // values ≤ 0 are dropped on log axes, so the lines are redrawn
  emit viewOptionsChanged();
}

void LivePlots::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const int columns = width() >= kThreeColumnsFrom ? kGridColumns : 2;
  if (shown_ids_.isEmpty() && columns != columns_) setShownPlots(shown_ids_);
}

void LivePlots::setShownPlots(const QStringList& ids) {
  shown_ids_ = ids;
  const int columns = !ids.isEmpty() ? 2 : width() >= kThreeColumnsFrom ? kGridColumns : 2;
  columns_ = columns;
  for (int i = 0; i < grid_->rowCount(); ++i) grid_->setRowStretch(i, 0);
  for (int i = 0; i < grid_->columnCount(); ++i) grid_->setColumnStretch(i, 0);
  int shown = 0;
  for (MetricCanvas* canvas : canvases_) {
    grid_->removeWidget(canvas);
    const bool show = ids.isEmpty() || ids.contains(canvas->definition().id);
    canvas->setVisible(show);
    if (!show) continue;
    grid_->addWidget(canvas, shown / columns, shown % columns);
    ++shown;
  }
  for (int col = 0; col < columns; ++col) grid_->setColumnStretch(col, 1);
  for (int row = 0; row * columns < shown; ++row) grid_->setRowStretch(row, 1);
}

void LivePlots::resetView() {
  for (MetricCanvas* c : canvases_) c->setFollow(true);
  refresh();
}

void LivePlots::replotNow() {
  for (MetricCanvas* c : canvases_) c->plot()->replot(QCustomPlot::rpImmediateRefresh);
}

double LivePlots::replotCostMs() const {
  double ms = 0;
  for (const MetricCanvas* c : canvases_) ms += c->plot()->replotTime(true);
  return ms;
}

int LivePlots::pointCount() const {
  int n = 0;
  for (const MetricCanvas* c : canvases_) n += c->pointCount();
  return n;
}

void LivePlots::rebuild() {
  // A view change (axis, smoothing, runs) redraws from the kept history once; live updates
  // go through feedNew() and only append.
  for (MetricCanvas* c : canvases_) c->clear();
  state_.assign(sources_.size(), SourceState{});
  for (size_t i = 0; i < sources_.size(); ++i) feedNew(static_cast<int>(i));
  refresh();
}

QString LivePlots::sourceLabel(int source) const {
  if (sources_.size() < 2) return QString();
  return QString::fromStdString(sources_[static_cast<size_t>(source)]->label);
}

void LivePlots::feedNew(int source) {
  const RunData& run = *sources_[static_cast<size_t>(source)];
  SourceState& st = state_[static_cast<size_t>(source)];
  const QString label = sourceLabel(source);
  const auto& catalog = plotCatalog();
  for (const ArmSeries& arm : run.arms) {
    const size_t step_from = st.steps_done[arm.arm];
    const size_t eval_from = st.evals_done[arm.arm];
    const size_t step_n = arm.steps.size() - step_from;
    const size_t eval_n = arm.evals.size() - eval_from;
    if (step_n == 0 && eval_n == 0) continue;
    QVector<double> sx, ex, y;
    sx.reserve(static_cast<int>(step_n));
    for (size_t i = step_from; i < arm.steps.size(); ++i) sx.push_back(xOf(arm.steps[i], x_mode_));
    for (size_t i = eval_from; i < arm.evals.size(); ++i) ex.push_back(xOf(arm.evals[i], x_mode_));
    for (size_t c = 0; c < catalog.size(); ++c) {
      for (size_t s = 0; s < catalog[c].series.size(); ++s) {
        const SeriesDef& def = catalog[c].series[s];
        if (def.only_arm && *def.only_arm != arm.arm) continue;
        y.clear();
        if (def.step_value && step_n > 0) {
          DebiasedEma* ema = nullptr;
          if (def.smoothed) {
            auto key = std::make_tuple(arm.arm, static_cast<int>(c), static_cast<int>(s));
            ema = &st.emas.try_emplace(key, smoothing_).first->second;
          }
          for (size_t i = step_from; i < arm.steps.size(); ++i) {
            const double v = def.step_value(arm.steps[i]);
            y.push_back(ema ? (std::isfinite(v) ? ema->add(v) : kNaN) : v);
          }
          canvases_[c]->addPoints(source, arm.arm, static_cast<int>(s), label, sx, y);
        } else if (def.eval_value && eval_n > 0) {
          for (size_t i = eval_from; i < arm.evals.size(); ++i) y.push_back(def.eval_value(arm.evals[i]));
          canvases_[c]->addPoints(source, arm.arm, static_cast<int>(s), label, ex, y);
        }
      }
    }
    st.steps_done[arm.arm] = arm.steps.size();
    st.evals_done[arm.arm] = arm.evals.size();
  }
  addEventMarkers(source, st.events_done);
  st.events_done = run.events.size();
  addProbes(source, st.probes_done);
  st.probes_done = run.probes.size();
  updateReadouts();
}

void LivePlots::addNote(ArmKind arm, const QString& text) {
  if (!showingLive()) return;
  const RunData& run = live_->data();
  const ArmSeries* series = run.find(arm);
  if (!series || series->steps.empty()) return;
  EventRecord at;
  at.samples_seen = series->steps.back().samples_seen;
  at.wall_ms = series->steps.back().wall_ms;
  for (MetricCanvas* c : canvases_) {
    if (c->definition().id == "loss") c->addMarker(eventX(run, at), text, armColor(arm));
  }
}

double LivePlots::eventX(const RunData& run, const EventRecord& e) const {
  switch (x_mode_) {
    case XAxisMode::kSamples: return static_cast<double>(e.samples_seen);
    case XAxisMode::kWallTime: return e.wall_ms / 1000.0;
    case XAxisMode::kSteps: break;
  }
  // On the steps axis an event sits at the step the first arm had reached by then.
  for (const ArmSeries& arm : run.arms) {
    if (arm.steps.empty()) continue;
    auto it = std::lower_bound(
        arm.steps.begin(), arm.steps.end(), e.samples_seen,
        [](const StepRecord& r, int64_t samples) { return r.samples_seen < samples; });
    return it == arm.steps.end() ? static_cast<double>(arm.steps.back().step) + 1
                                 : static_cast<double>(it->step);
  }
  return 0;
}

void LivePlots::addProbes(int source, size_t from) {
  const RunData& run = *sources_[static_cast<size_t>(source)];
  if (from >= run.probes.size()) return;
  QVector<double> x, y, lo, hi;
  for (size_t i = from; i < run.probes.size(); ++i) {
    const ProbeRecord& p = run.probes[i];
    x.push_back(xOf(p, x_mode_));
    y.push_back(p.ratio);
    lo.push_back(p.ci_low);
    hi.push_back(p.ci_high);
  }
  QString name = tr("same weights (probe)");
  if (sources_.size() > 1) name = QString::fromStdString(run.label) + ": " + name;
  for (MetricCanvas* c : canvases_) {
    if (c->definition().id == "variance") {
      c->addIntervalPoints(source, 1, name, QColor(kSliderMarkerColor), x, y, lo, hi);
    }
  }
}

void LivePlots::addEventMarkers(int source, size_t from) {
  const RunData& run = *sources_[static_cast<size_t>(source)];
  for (size_t i = from; i < run.events.size(); ++i) {
    const EventRecord& e = run.events[i];
    QColor color;
    QString text = QString::fromStdString(e.message);
    const QString arm = QString::fromStdString(armName(e));
    if (isBatchChange(e.kind)) {
      color = QColor(kSliderMarkerColor);
    } else if (endsArm(e.kind) && e.arm) {
      color = armColor(*e.arm);
      text = arm + " " + QString::fromStdString(toString(e.kind));
    } else if (e.kind == EventKind::kOutOfMemory && e.arm) {
      // Its memory line drops here: the same update, in smaller pieces.
      color = armColor(*e.arm);
      text = arm + ": " + text;
    } else {
      continue;  // pauses and stops do not change what the curves mean
    }
    if (sources_.size() > 1) text = QString::fromStdString(run.label) + ": " + text;
    for (MetricCanvas* c : canvases_) c->addMarker(eventX(run, e), text, color);
  }
}

void LivePlots::updateReadouts() {
  if (sources_.empty()) return;
  const RunData& run = *sources_.front();
  const ArmSeries* accum = run.find(ArmKind::kAccum);
  const ArmSeries* big = run.find(ArmKind::kBigBatch);
  for (MetricCanvas* c : canvases_) {
    const QString& id = c->definition().id;
    if (id == "variance") {
      c->setReadout(varianceReadout(run));
    } else if (id == "equivalence") {
      const double g = accum ? lastFinite(accum->steps, &StepRecord::grad_equiv) : kNaN;
      const double d = big ? lastFinite(big->steps, &StepRecord::weight_rel_diff) : kNaN;
      QStringList parts;
      if (std::isfinite(g)) parts << tr("gradient <b>%1</b>").arg(QString::number(g, 'e', 1));
      if (std::isfinite(d)) parts << tr("trajectories %1").arg(QString::number(d, 'e', 1));
      if (!parts.isEmpty()) c->setReadout(parts.join(" · "));
    }
  }
}

QString LivePlots::varianceReadout(const RunData& run) const {
  // The clean measurement first: a narrow plot clips the end of the read-out.
  const ArmSeries* no_accum = run.find(ArmKind::kNoAccum);
  const ArmSeries* accum = run.find(ArmKind::kAccum);
  // Without an accum arm, big-batch's update is the same batch of m·K samples.
  if (accum == nullptr || accum->steps.empty()) accum = run.find(ArmKind::kBigBatch);
  QStringList parts;
  int64_t k = 0;
  if (!run.probes.empty()) {
    const ProbeRecord& p = run.probes.back();
    if (std::isfinite(p.ratio)) {
      parts << tr("same weights <b>%1×</b> %2 · theory %3")
                   .arg(ratioText(p.ratio), intervalText(p.ci_low, p.ci_high))
                   .arg(p.accum);
    }
  }
  if (no_accum && accum && !accum->steps.empty() && !no_accum->steps.empty()) {
    const StepRecord& a = accum->steps.back();
    const StepRecord& n = no_accum->steps.back();
    // The batch ratio of the two updates: K for accum, m·K/m for big-batch.
    k = accum->arm == ArmKind::kAccum ? currentAccum(accum->steps)
                                      : (a.micro_batch * a.accum) / std::max<int64_t>(1, n.micro_batch * n.accum);
    const int64_t w = run.info.config.variance_window;
    if (a.loss_var_count < w || n.loss_var_count < w) {
      parts << tr("settling… %1/%2 updates").arg(std::min(a.loss_var_count, n.loss_var_count)).arg(w);
    } else {
      const RatioInterval r = detrendedRatio(n.loss_var_detrended, n.loss_var_count,
                                             a.loss_var_detrended, a.loss_var_count);
      // The arms train to different weights: their ratio is no test of K (see "?").
      if (std::isfinite(r.ratio)) {
        parts << tr("arms' own ratio <b>%1</b> %2 (other weights)").arg(ratioText(r.ratio), intervalText(r.low, r.high));
      }
    }
  }
  if (parts.isEmpty()) return QString();
  if (run.probes.empty() && k > 0) parts.prepend(tr("theory %1 at one set of weights").arg(k));
  return parts.join(" · ");
}

void LivePlots::refresh() {
  // Linked x-axes: following plots share the union of their x spans.
  double lo = 0, hi = 0;
  bool any = false;
  for (MetricCanvas* c : canvases_) {
    double a, b;
    if (!c->following() || !c->xBounds(&a, &b)) continue;
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  }
  for (MetricCanvas* c : canvases_) {
    if (c->following()) {
      c->fitToData();
      if (any) c->setXRange(QCPRange(lo, hi > lo ? hi : lo + 1));
    }
    c->refresh();
  }
}

}  // namespace accumlab::ui
