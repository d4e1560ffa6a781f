// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plot_feed.h"

#include <qcustomplot.h>
#include <QObject>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "accumlab/smoothing.h"
#include "plots/arm_style.h"
#include "plots/metric_canvas.h"
#include "plots/pane_readouts.h"
#include "plots/probe_spread_plot.h"

namespace accumlab::ui {

namespace {
/// Colour of the markers of slider changes.
constexpr QRgb kSliderMarkerColor = 0x7B5EA7;
}  // namespace

/// How far each arm of one source has been plotted, and its smoothing state.
struct PlotFeed::SourceState {
  std::map<ArmKind, size_t> steps_done;
  std::map<ArmKind, size_t> evals_done;
  size_t events_done = 0;
  size_t probes_done = 0;
  std::map<std::tuple<ArmKind, int, int>, DebiasedEma> emas;  ///< (arm, canvas, series)
};

PlotFeed::PlotFeed(std::vector<MetricCanvas*> canvases) : canvases_(std::move(canvases)) {}

PlotFeed::~PlotFeed() = default;

void PlotFeed::draw(std::vector<const RunData*> runs, XAxisMode x_mode, double smoothing) {
  sources_ = std::move(runs);
  x_mode_ = x_mode;
  smoothing_ = smoothing;
  for (MetricCanvas* c : canvases_) c->clear();
  for (auto& [canvas, histogram] : histograms_) histogram->hide();
  state_.assign(sources_.size(), SourceState{});
  for (size_t i = 0; i < sources_.size(); ++i) drawNew(static_cast<int>(i));
}

QString PlotFeed::sourceLabel(int source) const {
  if (sources_.size() < 2) return QString();
  return QString::fromStdString(sources_[static_cast<size_t>(source)]->label);
}

void PlotFeed::drawNew(int source) {
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
        if (!def.drawnFor(arm.arm)) continue;
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
          for (size_t i = eval_from; i < arm.evals.size(); ++i)
            y.push_back(def.eval_value(arm.evals[i]));
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

double PlotFeed::eventX(const RunData& run, const EventRecord& e) const {
  switch (x_mode_) {
    case XAxisMode::kSamples:
      return static_cast<double>(e.samples_seen);
    case XAxisMode::kWallTime:
      return e.wall_ms / 1000.0;
    case XAxisMode::kSteps:
      break;
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

void PlotFeed::addProbes(int source, size_t from) {
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
  // Compared, the dots are named once: the key above the plots says which colour is which run.
  const QString name = sources_.size() > 1 ? QObject::tr("same weights (probe), each run's colour")
                                           : QObject::tr("same weights (probe)");
  for (MetricCanvas* c : canvases_) {
    if (c->definition().id != "variance") continue;
    // Compared, each run's dots take its colour, as its lines do.
    const QColor color = sources_.size() > 1 ? runColor(source) : QColor(kSliderMarkerColor);
    c->addIntervalPoints(source, 1, name, color, x, y, lo, hi);
    // The picture of the latest probe, for one run (compared runs would need one each).
    if (source != 0 || sources_.size() > 1) continue;
    auto& histogram = histograms_[c];
    if (!histogram) histogram = std::make_unique<ProbeSpreadPlot>(c->plot());
    histogram->show(run.probes.back());
  }
}

namespace {

/// A change of m or K as a marker says it: "m 8→16", "K 4→8" (the event's sentence goes on
/// with where and how, which the marker's line shows).
QString shortChange(const EventRecord& e) {
  QString text = QString::fromStdString(e.message);
  text = text.left(text.indexOf(" for all arms"));
  if (text.startsWith("micro-batch ")) text = "m " + text.mid(12);
  return text.replace(" → ", "→");
}

}  // namespace

void PlotFeed::addEventMarkers(int source, size_t from) {
  const RunData& run = *sources_[static_cast<size_t>(source)];
  QString changes;  // m and K changed at one sample: one marker says both
  for (size_t i = from; i < run.events.size(); ++i) {
    const EventRecord& e = run.events[i];
    QColor color;
    QString text = QString::fromStdString(e.message);
    const QString arm = QString::fromStdString(armName(e));
    if (isBatchChange(e.kind)) {
      color = QColor(kSliderMarkerColor);
      changes += (changes.isEmpty() ? "" : ", ") + shortChange(e);
      const bool more = i + 1 < run.events.size() && isBatchChange(run.events[i + 1].kind) &&
                        run.events[i + 1].samples_seen == e.samples_seen;
      if (more) continue;
      text = changes;
      changes.clear();
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
    if (sources_.size() > 1)
      text = QString::fromStdString(run.id_label.empty() ? run.label : run.id_label) + ": " + text;
    for (MetricCanvas* c : canvases_) c->addMarker(eventX(run, e), text, color);
  }
}

void PlotFeed::updateReadouts() {
  if (sources_.empty()) return;
  // The ratio's theory K and the batch sizes' m·K get a tick of their own (log panes 1), each
  // compared run's.
  std::vector<double> k, mk;
  for (const RunData* run : sources_) {
    if (const ArmSeries* accum = run->find(ArmKind::kAccum); accum && !accum->steps.empty()) {
      k.push_back(static_cast<double>(currentAccum(accum->steps)));
      mk.push_back(k.back() * static_cast<double>(accum->steps.back().micro_batch));
    }
  }
  // Comparing, every run gets its read-out, named by its run ids ("runs 4–6: …").
  const auto every_run = [this](const auto& readout) {
    QStringList texts, more;
    for (const RunData* run : sources_) {
      const auto r = readout(*run);
      if (r.text.isEmpty()) continue;
      const QString whose =
          sources_.size() > 1
              ? QString::fromStdString(run->id_label.empty() ? run->label : run->id_label) + ": "
              : QString();
      texts << whose + r.text;
      if (!r.more.isEmpty()) more << whose + r.more;
    }
    return std::make_pair(texts.join("<br>"), more.join("<br><br>"));
  };
  for (MetricCanvas* c : canvases_) {
    const QString& id = c->definition().id;
    if (id == "variance") c->markValues(1, k);
    if (id == "noise") c->markValues(1, mk);
    if (id == "throughput") c->setYLabel(0, throughputLabel(sources_));
    if (id == "variance") {
      const auto [text, more] = every_run([](const RunData& run) { return varianceReadout(run); });
      c->setReadout(text, more);
    } else if (id == "validation") {
      const auto [text, more] =
          every_run([](const RunData& run) { return textSampleReadout(run); });
      if (!text.isEmpty()) c->setReadout(text, more);
    } else if (id == "throughput") {
      const auto [text, more] =
          every_run([](const RunData& run) { return throughputReadout(run); });
      c->setReadout(text, more);
    } else if (id == "equivalence") {
      const auto [text, more] =
          every_run([](const RunData& run) { return equivalenceReadout(run); });
      if (!text.isEmpty()) c->setReadout(text, more);
    }
  }
}

void PlotFeed::refresh() {
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
