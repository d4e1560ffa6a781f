// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <csignal>
#include <functional>
#include <string>
#include <thread>

namespace accumlab::app {

/// Turns SIGINT and SIGTERM into a clean stop while it lives: the first signal prints
/// `notice` on stderr and calls `stop` (e.g. Trainer::requestStop, which ends every arm at the
/// next window boundary as `stopped`) from a watcher thread; a second one ends the process at
/// once with 128 + its number (130 for Ctrl-C), naming `program`. The previous handlers come
/// back when it is destroyed.
///
/// Threads: the signal handler only counts the signal and wakes the watcher through a pipe
/// (both async-signal-safe); the watcher thread, owned by this object, does the rest.
/// One instance at a time per process.
class StopOnSignal {
 public:
  StopOnSignal(std::string program, std::string notice, std::function<void()> stop);
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  /// The first signal received (SIGINT or SIGTERM), or 0 when none came.
  int signalReceived() const;

 private:
  void watch();

  std::string program_;
  std::string notice_;
  std::function<void()> stop_;
  std::thread watcher_;
  struct sigaction old_int_ {
  }, old_term_{};
};

}  // namespace accumlab::app
