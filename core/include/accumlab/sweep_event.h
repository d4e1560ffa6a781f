// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "accumlab/sweep.h"
#include "accumlab/sweep_runner.h"
#include "accumlab/sweep_spec.h"

namespace accumlab {

/// One thing a sweep tells while it trains: what SweepRunner's observer hears, what
/// `accumlab-cli sweep --progress jsonl` writes as one JSON line (docs/cli.md, "Progress for
/// programs"), and what the app's Sweeps tab reads. The JSON names are an interface.
struct SweepEvent {
  enum class Kind { kSweepStarted, kPointStarted, kPointFinished, kSweepFinished, kError };
  Kind kind = Kind::kError;
  int64_t sweep = 0;  ///< the stored sweep's id (all but kError)
  /// kPointStarted: the point's index, sizes and LR; kPointFinished: its whole outcome.
  SweepPoint point;
  size_t points = 0;     ///< kSweepStarted: points to train
  int jobs = 0;          ///< kSweepStarted: points trained at once
  SweepTarget target;    ///< kSweepStarted
  std::string db;        ///< kSweepStarted, kSweepFinished: the store's path
  size_t done = 0;       ///< kPointFinished, kSweepFinished: points ended so far
  size_t total = 0;      ///< kPointFinished, kSweepFinished: points this sweep trains
  double seconds = 0;    ///< kPointFinished: the point's wall time
  bool stopped = false;  ///< kSweepFinished: stopped before every point ended
  bool failed = false;   ///< kSweepFinished: a point failed
  std::string message;   ///< kError: the one-sentence reason
};

/// The event as one line of JSON, without the newline (invalid UTF-8 replaced).
std::string sweepEventToJson(const SweepEvent& event);
/// The event of one line; nullopt for anything else (text, a partial line, an event or a
/// point status this build does not know), so that no wording of a message can change
/// what a reader sees.
std::optional<SweepEvent> parseSweepEvent(const std::string& line);

/// A SweepObserver that hands each report on as a SweepEvent, on the runner's thread.
class SweepEventObserver : public SweepObserver {
 public:
  /// `db` is the store's path, for kSweepStarted and kSweepFinished; `jobs` the points at once.
  SweepEventObserver(std::function<void(const SweepEvent&)> tell, std::string db, int jobs);
  void sweepStarted(const SweepPlan& plan) override;
  void pointStarted(const SweepPoint& point) override;
  void pointFinished(const SweepPoint& point, size_t done, size_t total, double seconds) override;
  void sweepFinished(const SweepOutcome& outcome) override;

 private:
  /// An event of `kind` about this sweep, for the report to fill in.
  SweepEvent event(SweepEvent::Kind kind) const;

  std::function<void(const SweepEvent&)> tell_;
  std::string db_;
  int jobs_;
  int64_t sweep_id_ = 0;
};

}  // namespace accumlab
