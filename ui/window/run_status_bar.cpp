// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/run_status_bar.h"

#include <QLabel>
#include <QLocale>
#include <QPaintEvent>
#include <QPainter>
#include <QProgressBar>
#include <QStyle>
#include <QStyleOption>
#include <algorithm>
#include <cmath>

#include "plots/arm_style.h"
#include "plots/pane_readouts.h"
#include "series/live_run.h"
#include "widgets/elided_label.h"

namespace accumlab::ui {

namespace {
QString formatDuration(double seconds) {
  const auto s = static_cast<qint64>(std::llround(std::max(0.0, seconds)));
  if (s >= 3600) return QString("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
  if (s >= 60) return QString("%1 min %2 s").arg(s / 60).arg(s % 60);
  return QString("%1 s").arg(s);
}

QString formatRate(double r) {
  if (!std::isfinite(r)) return "–";
  if (r >= 1e4) return QString::number(r / 1000.0, 'f', 0) + "k";
  return QString::number(r, 'f', 0);
}
}  // namespace

RunStatusBar::RunStatusBar(QWidget* parent) : QStatusBar(parent) {
  state_ = new ElidedLabel(tr("Ready"), this);
  state_->setObjectName("state");
  message_ = new ElidedLabel(QString(), this);
  message_->setObjectName("message");
  progress_ = new QProgressBar(this);
  progress_->setObjectName("progress");
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  progress_->setMaximumWidth(220);
  progress_->setFormat("%p%");
  eta_ = new ElidedLabel(QString(), this);
  eta_->setObjectName("eta");
  throughput_ = new QLabel(this);
  throughput_->setObjectName("throughput");
  throughput_->setTextFormat(Qt::RichText);
  throughput_->setToolTip(tr("Training samples per second of each arm"));
  device_ = new ElidedLabel(QString(), this);
  database_ = new ElidedLabel(QString(), this);
  database_->setToolTip(tr("The run database"));
  // The state is a normal widget: a status message takes its place, with the room of the
  // time and place labels too while it shows (on a 1024×768 screen the two overlapped). The
  // progress and the rates are permanent.
  addWidget(state_, 1);
  // A message is a label of its own in the state's place (QStatusBar's own drawing of it
  // ran over the state's label in some sequences of events, and cut it without a tooltip).
  addPermanentWidget(message_, 1);
  message_->hide();
  addPermanentWidget(progress_);
  addPermanentWidget(eta_);
  addPermanentWidget(throughput_);
  addPermanentWidget(device_);
  addPermanentWidget(database_);
  progress_->hide();  // until a run starts: "0%" before any run says nothing
  connect(this, &QStatusBar::messageChanged, this, [this](const QString& message) {
    message_->setFullText(message);
    message_->setVisible(!message.isEmpty());
    for (QWidget* w : {static_cast<QWidget*>(eta_), static_cast<QWidget*>(device_),
                       static_cast<QWidget*>(database_)}) {
      w->setVisible(message.isEmpty());
    }
  });
}

void RunStatusBar::paintEvent(QPaintEvent* event) {
  // The frame only: the message is message_'s to show.
  QPainter p(this);
  QStyleOption option;
  option.initFrom(this);
  style()->drawPrimitive(QStyle::PE_PanelStatusBar, &option, &p, this);
  event->accept();
}

void RunStatusBar::setState(const QString& state) { state_->setFullText(state); }

void RunStatusBar::setPaused(bool paused) {
  paused_ = paused;
  if (paused) eta_->setFullText(tr("paused"));
}

void RunStatusBar::resetProgress() {
  paused_ = false;
  clearProgress(true);
}

void RunStatusBar::clearProgress(bool shown) {
  progress_->setVisible(shown);
  progress_->setValue(0);
  progress_->setToolTip(QString());
  eta_->setFullText(QString());
  throughput_->clear();
}

void RunStatusBar::showEvent(const EventRecord& e) {
  if (!endsArm(e.kind) && !isBatchChange(e.kind) && e.kind != EventKind::kModel &&
      e.kind != EventKind::kRejected && e.kind != EventKind::kOutOfMemory &&
      e.kind != EventKind::kWorkers) {
    return;
  }
  const QString arm = e.arm ? QString::fromStdString(toString(*e.arm)) + ": " : QString();
  showMessage(arm + QString::fromStdString(e.message), 8000);
}

void RunStatusBar::setLiveRun(const LiveRun* live) {
  connect(live, &LiveRun::appended, this, [this, live] { showProgress(live->data()); });
  connect(live, &LiveRun::eventAdded, this, &RunStatusBar::showEvent);
  connect(live, &LiveRun::ended, this,
          [this, live](bool failed) { showFinished(&live->data(), failed); });
}

void RunStatusBar::showFinished(const RunData* run, bool failed) {
  bool stopped = false;
  if (run) {
    for (const ArmSeries& arm : run->arms)
      stopped = stopped || arm.summary.status == ArmStatus::kStopped;
  }
  setState(failed ? tr("Failed") : stopped ? tr("Stopped") : tr("Finished"));
}

void RunStatusBar::showProgress(const RunData& run) {
  const int64_t budget = run.info.budget_samples;
  if (budget <= 0 || run.arms.empty()) return;
  // Progress over all arms: each counts its samples up to the budget (ended arms count full).
  double done = 0, wall_ms = 0;
  bool all_ended = true;
  QStringList rates, pitfall_rates;
  bool text = false;
  for (const ArmSeries& arm : run.arms) {
    // Only a finished arm counts in full: a stopped or failed one shows where it ended.
    const bool finished = arm.has_summary && arm.summary.status == ArmStatus::kFinished;
    const int64_t seen = arm.has_summary     ? arm.summary.samples_seen
                         : arm.steps.empty() ? 0
                                             : arm.steps.back().samples_seen;
    done += finished ? 1.0 : std::min(1.0, static_cast<double>(seen) / static_cast<double>(budget));
    all_ended = all_ended && arm.has_summary && arm.summary.status != ArmStatus::kRunning;
    if (!arm.steps.empty()) {
      wall_ms = std::max(wall_ms, arm.steps.back().wall_ms);
      const StepRecord& last = arm.steps.back();
      QString rate =
          QString("<span style='color:%1'>■</span> %2 %3/s")
              .arg(armColorName(arm.arm), armName(arm.arm), formatRate(last.samples_per_s));
      // Text: sequences per second say little when their lengths vary; tokens say it all.
      // Short, so that three arms and the time and place still fit on a 1024 px screen.
      if (std::isfinite(last.tokens_per_s)) {
        rate += tr(" · %1 tok/s").arg(formatRate(last.tokens_per_s));
        text = true;
      }
      const int64_t workers = run.info.config.workers;
      if (workers > 1 && std::isfinite(last.allreduce_ms)) {
        // A data-parallel arm: what each worker trains, and how long its last window waited
        // in the all-reduce (the wait for slower workers included).
        rate += tr(" (%1 workers × %2/s, all-reduce %3 ms)")
                    .arg(workers)
                    .arg(formatRate(last.samples_per_s / static_cast<double>(workers)))
                    .arg(last.allreduce_ms, 0, 'f', 2);
      }
      (isPitfall(arm.arm) ? pitfall_rates : rates) << rate;
    }
  }
  const double fraction = done / static_cast<double>(run.arms.size());
  progress_->setValue(static_cast<int>(std::lround(fraction * 1000)));
  progress_->setToolTip(tr("%1 of %2 samples per arm")
                            .arg(QLocale().toString(static_cast<qlonglong>(run.samplesSeen())),
                                 QLocale().toString(static_cast<qlonglong>(budget))));
  if (all_ended && fraction < 1.0) {
    // Short enough to stand whole beside three arms' rates at 1024 px; the counts are in the
    // tooltip.
    eta_->setFullText(tr("stopped at %1% after %2")
                          .arg(static_cast<int>(std::floor(fraction * 100)))
                          .arg(formatDuration(wall_ms / 1000.0)));
    eta_->setToolTip(tr("stopped at %1 of %2 samples per arm")
                         .arg(QLocale().toString(static_cast<qlonglong>(run.samplesSeen())),
                              QLocale().toString(static_cast<qlonglong>(budget))));
  } else if (paused_ && !all_ended) {
    eta_->setFullText(tr("paused"));  // no time to arrival while nothing moves
  } else if (fraction > 0.01 && fraction < 1.0) {
    eta_->setFullText(
        tr("ETA %1").arg(formatDuration(wall_ms / 1000.0 * (1 - fraction) / fraction)));
  } else if (fraction >= 1.0) {
    eta_->setFullText(tr("took %1").arg(formatDuration(wall_ms / 1000.0)));
  }
  // The time keeps its words where the device and the database give way first (their
  // tooltips hold them): "took 1 min 5 s" whole, a long "stopped at …" from its start.
  eta_->setMinimumWidth(std::min(eta_->sizeHint().width(),
                                 eta_->fontMetrics().horizontalAdvance(tr("took 59 min 59 s"))));
  // The wrong recipes' rates are in the tooltip: all of them side by side would widen the
  // window past a 1024×768 screen.
  if (!pitfall_rates.isEmpty()) rates << tr("+%n wrong recipe(s)", "", pitfall_rates.size());
  throughput_->setText(rates.join(" &nbsp; "));
  QString tip = text ? tr("Training sequences per second of each arm, and its target tokens "
                          "per second (tok/s: each sequence's bytes and its end byte)")
                     : tr("Training samples per second of each arm");
  if (!pitfall_rates.isEmpty()) tip += tr("; the wrong recipes: %1").arg(pitfall_rates.join(", "));
  // Each arm's GFLOP/s and its share of the measured ceiling, where the model counts FLOPs.
  for (const ArmSeries& arm : run.arms) {
    const QString gflops = gflopsSentence(run, arm);
    if (!gflops.isEmpty()) tip += "\n" + armName(arm.arm) + ": " + gflops;
  }
  throughput_->setToolTip(tip);
}

void RunStatusBar::setDevice(const QString& device) { device_->setFullText(device); }

void RunStatusBar::setDatabase(const QString& path) {
  database_->setFullText(path.isEmpty() ? tr("not stored") : tr("DB: %1").arg(path));
}

QString RunStatusBar::messageText() const {
  return message_->isHidden() ? QString() : message_->fullText();
}

QString RunStatusBar::stateText() const { return state_->fullText(); }

QString RunStatusBar::throughputText() const { return throughput_->text(); }

QString RunStatusBar::throughputTip() const { return throughput_->toolTip(); }

int RunStatusBar::progressPercent() const { return progress_->value() / 10; }

QString RunStatusBar::etaText() const { return eta_->fullText(); }

bool RunStatusBar::progressShown() const { return progress_->isVisible(); }

}  // namespace accumlab::ui
