// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plot_grid.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "plots/arm_style.h"
#include "plots/metric_canvas.h"
#include "plots/plot_feed.h"
#include "series/shown_runs.h"

namespace accumlab::ui {

namespace {
/// Columns of the plot grid.
constexpr int kGridColumns = 3;
/// Below this width the grid has two columns (three rows): a narrow screen, e.g. 1024×768
/// with the experiment panel open, keeps plots wide enough to read.
constexpr int kThreeColumnsFrom = 900;
/// The smallest a plot may become: its legend, read-out and two panes readable. A smaller
/// screen scrolls the plots (vertically) rather than shrink them.
constexpr QSize kMinCanvas(200, 260);
/// Slider steps per unit of smoothing.
constexpr int kSmoothingSteps = 100;
/// The largest smoothing the slider offers.
constexpr double kMaxSmoothing = 0.99;

}  // namespace

PlotGrid::PlotGrid(const ShownRuns* shown, QWidget* parent) : QWidget(parent), shown_(shown) {
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

  compare_key_ = new QLabel(this);
  compare_key_->setObjectName("armKey");
  compare_key_->setTextFormat(Qt::RichText);
  compare_key_->setWordWrap(true);
  compare_key_->setContentsMargins(8, 2, 8, 0);
  compare_key_->setVisible(false);

  auto* sheet = new QWidget;
  sheet->setObjectName("plotSheet");
  grid_ = new QGridLayout(sheet);
  grid_->setContentsMargins(2, 2, 2, 2);
  grid_->setSpacing(4);
  const auto& catalog = plotCatalog();
  for (size_t i = 0; i < catalog.size(); ++i) {
    auto* canvas = new MetricCanvas(catalog[i], this);
    canvas->setMinimumSize(kMinCanvas);
    canvas->setArmKeyOutside(true);  // the key above the grid names the arms for every plot
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
  feed_ = std::make_unique<PlotFeed>(canvases_);
  setShownPlots({});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(compare_key_);
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName("plotScroll");
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(sheet);
  layout->addWidget(scroll, 1);

  connect(x_combo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int) { setXAxisMode(static_cast<XAxisMode>(x_combo_->currentData().toInt())); });
  connect(smoothing_slider_, &QSlider::valueChanged, this,
          [this](int v) { setSmoothing(static_cast<double>(v) / kSmoothingSteps); });
  connect(log_check_, &QCheckBox::toggled, this, &PlotGrid::setLogY);
  connect(reset, &QPushButton::clicked, this, &PlotGrid::resetView);
  connect(shown_, &ShownRuns::changed, this, &PlotGrid::onShownChanged);
  connect(shown_, &ShownRuns::liveAppended, this, [this] {
    feed_->drawNew(0);
    feed_->refresh();
    // A live run's arms arrive with its first records.
    if (shown_->runs().size() == 1 && shown_->runs().front()->arms.size() != keyed_arms_) {
      updateKey();
    }
  });
  if (!shown_->runs().empty()) rebuild();
}

PlotGrid::~PlotGrid() = default;

void PlotGrid::onShownChanged() {
  // Stored runs are seen whole; a live run that begins keeps the view the user chose.
  if (!shown_->isLive()) {
    for (MetricCanvas* c : canvases_) c->setFollow(true);
  }
  rebuild();
}

void PlotGrid::setXAxisMode(XAxisMode mode) {
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

void PlotGrid::setSmoothing(double s) {
  s = std::clamp(s, 0.0, kMaxSmoothing);
  const int pos = static_cast<int>(std::lround(s * kSmoothingSteps));
  if (smoothing_slider_->value() != pos) smoothing_slider_->setValue(pos);
  if (std::fabs(s - smoothing_) < 1e-9) return;
  smoothing_ = s;
  smoothing_label_->setText(QString::number(s, 'f', 2));
  rebuild();
  emit viewOptionsChanged();
}

void PlotGrid::setLogY(bool log) {
  if (log_check_->isChecked() != log) log_check_->setChecked(log);
  if (log == log_y_) return;
  log_y_ = log;
  for (MetricCanvas* c : canvases_) c->setLogY(log);
  rebuild();  // values ≤ 0 are dropped on log axes, so the lines are redrawn
  emit viewOptionsChanged();
}

void PlotGrid::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const int columns = width() >= kThreeColumnsFrom ? kGridColumns : 2;
  if (shown_ids_.isEmpty() && columns != columns_) setShownPlots(shown_ids_);
}

void PlotGrid::setShownPlots(const QStringList& ids) {
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

void PlotGrid::resetView() {
  for (MetricCanvas* c : canvases_) c->setFollow(true);
  feed_->refresh();
}

void PlotGrid::replotNow() {
  for (MetricCanvas* c : canvases_) c->plot()->replot(QCustomPlot::rpImmediateRefresh);
}

double PlotGrid::replotCostMs() const {
  double ms = 0;
  for (const MetricCanvas* c : canvases_) ms += c->plot()->replotTime(true);
  return ms;
}

int PlotGrid::pointCount() const {
  int n = 0;
  for (const MetricCanvas* c : canvases_) n += c->pointCount();
  return n;
}

void PlotGrid::rebuild() {
  // A view change (axis, smoothing, runs) redraws from the kept history once; live updates
  // go through PlotFeed::drawNew() and only append.
  feed_->draw(shown_->runs(), x_mode_, smoothing_);
  feed_->refresh();
  updateKey();
}

QString PlotGrid::compareKey() const {
  return compare_key_->isHidden() || shown_->runs().size() < 2 ? QString() : compare_key_->text();
}

QString PlotGrid::armKey() const {
  return compare_key_->isHidden() ? QString() : compare_key_->text();
}

void PlotGrid::updateKey() {
  const std::vector<const RunData*>& shown = shown_->runs();
  compare_key_->setVisible(!shown.empty());
  if (shown.empty()) return;
  keyed_arms_ = shown.front()->arms.size();
  if (shown.size() == 1) {
    // One run: each arm's colour and line, once for every plot.
    QStringList arms;
    for (const ArmSeries& a : shown.front()->arms) {
      const QString line = armPen(a.arm).style() == Qt::SolidLine ? "━━━" : "━ ━";
      arms << QString("<span style='color:%1'>%2</span>&nbsp;%3")
                  .arg(armColorName(a.arm), line,
                       armLegendName(a.arm).toHtmlEscaped().replace(' ', "&nbsp;"));
    }
    compare_key_->setText(arms.join(" &nbsp; "));
    return;
  }
  QStringList runs;
  std::set<ArmKind> arms;
  for (size_t i = 0; i < shown.size(); ++i) {
    // One label never breaks across lines.
    const QString label = QString::fromStdString(shown[i]->label)
                              .toHtmlEscaped()
                              .replace(' ', "&nbsp;")
                              .replace('-', "&#8209;");
    runs << QString("<span style='color:%1'>&#9632;</span>&nbsp;%2")
                .arg(runColor(static_cast<int>(i)).name(), label);
    for (const ArmSeries& a : shown[i]->arms) arms.insert(a.arm);
  }
  QStringList styles;
  for (ArmKind arm : arms) {
    const Qt::PenStyle style = armLineStyle(arm);
    styles << tr("%1 %2").arg(armName(arm), style == Qt::SolidLine  ? tr("solid")
                                            : style == Qt::DashLine ? tr("dashed")
                                                                    : tr("dotted"));
  }
  compare_key_->setText(runs.join(" &nbsp; ") + " &nbsp;·&nbsp; " +
                        tr("lines: %1").arg(styles.join(", ")));
}

void PlotGrid::addNote(ArmKind arm, const QString& text) {
  if (!shown_->isLive()) return;
  const RunData& run = *shown_->runs().front();
  const ArmSeries* series = run.find(arm);
  if (!series || series->steps.empty()) return;
  EventRecord at;
  at.samples_seen = series->steps.back().samples_seen;
  at.wall_ms = series->steps.back().wall_ms;
  for (MetricCanvas* c : canvases_) {
    if (c->definition().id == "loss") c->addMarker(feed_->eventX(run, at), text, armColor(arm));
  }
}

}  // namespace accumlab::ui
