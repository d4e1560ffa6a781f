// SPDX-License-Identifier: GPL-3.0-or-later
// The checks a new sweep passes before it is stored, for `accumlab-cli sweep` and the app's
// Sweeps tab alike.
#include "accumlab/sweep_check.h"

#include "accumlab/metrics_sink.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_grid.h"
#include "accumlab/trainer.h"

namespace accumlab {

void checkSweepPoints(const ExperimentConfig& base, const std::vector<SweepPoint>& points,
                      const std::string& store_path) {
  for (const SweepPoint& p : points) validateConfig(sweepPointConfig(base, p));
  RunStore::refuseReadingStore(base, store_path);
}

void dryRunSweepPoint(const ExperimentConfig& base, const SweepPoint& point) {
  ExperimentConfig c = sweepPointConfig(base, point);
  c.samples = 1;
  c.epochs = 0;
  c.probe_repeats = 0;
  c.grad_check_every = 0;
  NullSink silent;
  Trainer(c).run(silent);
}

}  // namespace accumlab
