// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_event.h"
#include "accumlab/sweep_runner.h"

namespace accumlab::ui {

/// A new sweep as the Sweeps tab asks for it: its points already built from the grid fields
/// (buildSweepGrid) and checked (checkSweepPoints).
struct SweepRequest {
  ExperimentConfig base;
  std::vector<SweepPoint> points;
  SweepTarget target;
  int jobs = 1;
  std::string store_path;
  std::string program;  ///< accumlab-cli, which trains each point (`sweep-point`)
};

/// Trains a sweep on a thread of its own, the same way `accumlab-cli sweep` does: a one-sample
/// dry run of its first point (unless a run holds LibTorch's generator), the stored sweep,
/// then SweepRunner with its points as child processes (ChildProcess). Each SweepEvent, and
/// the end, is told on the GUI thread. Owned by the GUI thread; the destructor asks a running
/// sweep to stop and waits until its points have stored their ends.
class SweepThread : public QObject {
 public:
  /// `tell` hears every event of the sweep, `ended` its end (an empty error when it trained),
  /// both on the GUI thread.
  SweepThread(std::function<void(const SweepEvent&)> tell,
              std::function<void(const QString& error, bool stopped)> ended,
              QObject* parent = nullptr);
  ~SweepThread() override;

  /// Starts `request`; false while a sweep is running.
  bool start(SweepRequest request);
  bool isRunning() const;
  /// Asks every running point to stop at its next window boundary, and starts no more.
  void requestStop();

 private:
  /// The sweep's thread: checks, stores and trains `request`.
  void train(const SweepRequest& request);

  std::function<void(const SweepEvent&)> tell_;
  std::function<void(const QString&, bool)> ended_;
  QThread* thread_ = nullptr;
  std::atomic<bool> stop_{false};
  std::mutex runner_mutex_;        ///< guards runner_
  SweepRunner* runner_ = nullptr;  ///< the sweep's runner while it trains (its thread owns it)
};

}  // namespace accumlab::ui
