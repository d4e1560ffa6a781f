// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop app's costs (issue: GUI samples/s ≥ 0.95× CLI, event-loop stall p99 < 50 ms
// while training, a replot with 1M points per graph < 50 ms):
//   build/bench/gui_bench [--data SPEC] [--samples N] [--reps N] [--points N]
// "CLI" is the loop `accumlab-cli run -q` runs: Trainer::run with a silent sink on a thread
// of this process; "GUI" is the full MainWindow (plot grid, status bar, runs list) training
// the same experiment. Runs alternate to share the machine's noise; medians are reported.
// Without a display it renders on Qt's off-screen platform (raster, like xcb's).
#include <time.h>

#include <qcustomplot.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "accumlab/trainer.h"
#include "controller/training_controller.h"
#include "experiment/experiment_panel.h"
#include "experiment/source_catalog.h"
#include "plots/metric_canvas.h"
#include "plots/plot_catalog.h"
#include "plots/plot_grid.h"
#include "series/shown_runs.h"
#include "window/main_window.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

/// The probe timer's period: lateness beyond it is time the GUI thread could not react.
constexpr int kProbeMs = 5;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Total training samples per second over all arms (sum of per-arm train throughput).
double totalRate(const std::vector<ArmSummary>& arms) {
  double r = 0;
  for (const ArmSummary& a : arms) r += a.samples_per_s;
  return r;
}

struct Rates {
  double total = 0;
  std::vector<double> per_arm;
};

Rates ratesOf(const std::vector<ArmSummary>& arms) {
  Rates r;
  for (const ArmSummary& a : arms) r.per_arm.push_back(a.samples_per_s);
  r.total = totalRate(arms);
  return r;
}

Rates runCli(const ExperimentConfig& config) {
  NullSink silent;
  RunSummary summary;
  std::thread worker([&] { summary = Trainer(config).run(silent); });
  worker.join();
  return ratesOf(summary.arms);
}

/// Share of one core the GUI thread used during the last GUI run.
double g_gui_load = 0;

/// Trains in the main window; `lateness_ms` collects how late each probe tick fired.
Rates runGui(MainWindow& window, const ExperimentConfig& config, std::vector<double>* lateness_ms) {
  window.experimentPanel()->setConfig(config);
  QElapsedTimer clock;
  QTimer probe;
  probe.setTimerType(Qt::PreciseTimer);
  probe.setInterval(kProbeMs);
  qint64 last = -1;
  QObject::connect(&probe, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    if (last >= 0) lateness_ms->push_back(std::max(0.0, (now - last) / 1e6 - kProbeMs));
    last = now;
  });
  QEventLoop loop;  // what QApplication::exec() runs in the app
  auto connection = QObject::connect(window.controller(), &TrainingController::finished, &loop,
                                     &QEventLoop::quit, Qt::QueuedConnection);
  clock.start();
  const double cpu0 = threadCpuSeconds();
  probe.start();
  window.startRun();
  loop.exec();
  probe.stop();
  g_gui_load = (threadCpuSeconds() - cpu0) / (clock.nsecsElapsed() * 1e-9);
  QObject::disconnect(connection);
  std::vector<ArmSummary> arms;
  for (const ArmSeries& a : window.shownRuns()->runs().front()->arms) arms.push_back(a.summary);
  return ratesOf(arms);
}

/// Median replot time of the loss plot holding `points` points in each of its lines.
std::vector<double> replotTimes(int points, int reps) {
  const CanvasDef& def = plotCatalog().front();
  MetricCanvas canvas(def);
  canvas.resize(900, 560);
  canvas.show();
  QVector<double> x(points), y(points);
  for (int s = 0; s < static_cast<int>(def.series.size()); ++s) {
    for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch}) {
      for (int i = 0; i < points; ++i) {
        x[i] = i;
        // A noisy decreasing loss: worst case for adaptive sampling is high-frequency noise.
        y[i] = 2.0 / (1.0 + i * 1e-5) +
               0.3 * ((i * 7919 + s * 31 + static_cast<int>(arm)) % 1000) / 1000.0;
      }
      canvas.addPoints(0, arm, s, QString(), x, y);
    }
  }
  canvas.fitToData();
  canvas.plot()->replot(QCustomPlot::rpImmediateRefresh);  // warm-up: caches, layout
  std::vector<double> ms, cpu_ms;
  for (int r = 0; r < reps; ++r) {
    QElapsedTimer t;
    t.start();
    const double cpu0 = threadCpuSeconds();
    canvas.plot()->replot(QCustomPlot::rpImmediateRefresh);
    cpu_ms.push_back((threadCpuSeconds() - cpu0) * 1e3);
    ms.push_back(t.nsecsElapsed() / 1e6);
  }
  std::printf("replot: %d lines × %d points (%.1fM points), CPU ms median %.1f\n",
              canvas.plot()->graphCount(), points, canvas.pointCount() / 1e6, median(cpu_ms));
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName("AccumLabBench");
  QApplication::setApplicationName("AccumLabBench");
  std::string data = fashionMnistInstalled() ? "fashion-mnist" : "spirals";
  int64_t samples = 30000;
  int reps = 3;
  int points = 1'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--data"))
      data = argv[i + 1];
    else if (!std::strcmp(argv[i], "--samples"))
      samples = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps"))
      reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--points"))
      points = std::atoi(argv[i + 1]);
  }

  const std::vector<double> replot = replotTimes(points, 15);
  std::printf("replot ms: median %.1f  p90 %.1f  (15 reps)\n", median(replot),
              percentile(replot, 0.9));

  ExperimentConfig config = defaultExperiment();
  config.data = data;
  config.samples = samples;
  config.epochs = 0;
  config.eval_every = samples / 3;
  MainWindow window;
  AppOptions options;
  options.fresh = true;
  options.no_store = true;
  window.applyOptions(options);
  window.show();
  std::printf("experiment: %s, %s, m=%lld K=%lld, %lld samples per arm, %d reps each\n",
              config.data.c_str(), config.model.c_str(), static_cast<long long>(config.micro_batch),
              static_cast<long long>(config.accum), static_cast<long long>(samples), reps);
  std::vector<double> cli_total, gui_total, lateness;
  std::vector<std::vector<double>> cli_arm(3), gui_arm(3);
  for (int r = 0; r < reps; ++r) {
    const Rates c = runCli(config);
    std::vector<double> late;
    const Rates g = runGui(window, config, &late);
    cli_total.push_back(c.total);
    gui_total.push_back(g.total);
    for (size_t a = 0; a < 3 && a < c.per_arm.size() && a < g.per_arm.size(); ++a) {
      cli_arm[a].push_back(c.per_arm[a]);
      gui_arm[a].push_back(g.per_arm[a]);
    }
    lateness.insert(lateness.end(), late.begin(), late.end());
    std::printf(
        "rep %d: CLI %.0f samples/s, GUI %.0f samples/s (%.3f), probe p99 late %.1f ms, "
        "GUI thread busy %.0f%%, one redraw of all plots %.1f ms\n",
        r + 1, c.total, g.total, g.total / c.total, percentile(late, 0.99), 100 * g_gui_load,
        window.plots()->replotCostMs());
  }
  const char* names[3] = {"no-accum", "accum", "big-batch"};
  for (int a = 0; a < 3; ++a) {
    std::printf("%-9s CLI %8.0f  GUI %8.0f samples/s  GUI/CLI %.3f\n", names[a], median(cli_arm[a]),
                median(gui_arm[a]), median(gui_arm[a]) / median(cli_arm[a]));
  }
  std::printf("all arms  CLI %8.0f  GUI %8.0f samples/s  GUI/CLI %.3f (medians)\n",
              median(cli_total), median(gui_total), median(gui_total) / median(cli_total));
  std::printf(
      "event loop while training: %zu probe ticks of %d ms, lateness p50 %.1f ms, "
      "p99 %.1f ms, max %.1f ms\n",
      lateness.size(), kProbeMs, percentile(lateness, 0.5), percentile(lateness, 0.99),
      lateness.empty() ? 0.0 : *std::max_element(lateness.begin(), lateness.end()));
  return 0;
}
