// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <vector>

#include "accumlab/sweep.h"

namespace accumlab::ui {

/// One progress object of `accumlab-cli sweep --progress jsonl` (docs/cli.md,
/// "Progress for programs"): the fields the Sweeps tab uses.
struct SweepProgressEvent {
  enum class Kind { kSweepStarted, kPointStarted, kPointFinished, kSweepFinished, kError };
  Kind kind = Kind::kError;
  int64_t sweep = 0;   ///< the stored sweep's id (all but kError)
  int64_t point = -1;  ///< the point's index (kPointStarted, kPointFinished)
  SweepStatus status = SweepStatus::kPending;  ///< kPointFinished
  int64_t done = 0;      ///< points ended so far (kPointFinished, kSweepFinished)
  int64_t total = 0;     ///< points this process trains (kPointFinished, kSweepFinished)
  bool stopped = false;  ///< kSweepFinished: stopped before every point ended
  QString message;       ///< kError: the one-sentence reason; kPointFinished: why it failed
};

/// Reads the sweep's progress stream as it arrives: splits it into lines and keeps the JSON
/// objects with a known "event"; any other line (text, a partial line, an unknown event) is
/// skipped, so that no wording of the CLI's messages can change what the tab sees.
/// GUI thread.
class SweepProgress {
 public:
  /// Takes the next bytes of the stream; returns the events of the lines they complete.
  std::vector<SweepProgressEvent> feed(const QByteArray& bytes);
  /// Forgets a partial line (a new sweep starts).
  void clear() { pending_.clear(); }

 private:
  QByteArray pending_;  ///< the last line, not yet ended by '\n'
};

}  // namespace accumlab::ui
