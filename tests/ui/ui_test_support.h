// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTest>
#include <functional>

#include "accumlab/experiment_config.h"

namespace accumlab::ui::test {

/// A small, fast experiment: spirals with an MLP, a few thousand samples per arm.
inline ExperimentConfig smallExperiment(int64_t samples = 6000) {
  ExperimentConfig c;
  c.data = "spirals";
  c.model = "mlp";
  c.micro_batch = 8;
  c.accum = 4;
  c.samples = samples;
  c.epochs = 0;
  c.eval_every = 2000;
  c.threads = 1;
  return c;
}

/// Keeps QSettings and app data of the tests away from the user's.
inline void isolateSettings() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("AccumLabTests");
  QCoreApplication::setApplicationName("AccumLabTests");
}

/// Processes events until `done` holds or `timeout_ms` passes; returns `done()`.
inline bool waitUntil(const std::function<bool()>& done, int timeout_ms = 30000) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < timeout_ms) QTest::qWait(10);
  return done();
}

}  // namespace accumlab::ui::test
