// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <vector>

#include "series/run_data.h"

namespace accumlab::ui {

class LiveRun;

/// The runs on screen: the live run (followed, owned elsewhere) or stored runs (owned here:
/// one experiment, or several compared). The plot grid draws what it holds; export, the
/// report and the benchmarks read it. GUI thread.
class ShownRuns : public QObject {
  Q_OBJECT

 public:
  explicit ShownRuns(QObject* parent = nullptr);

  /// Follows `live` (not owned; it must outlive this): a run it begins replaces what is shown.
  void setLiveRun(const LiveRun* live);
  /// Shows finished runs instead; several are compared, the first one's colour first.
  void showStored(std::vector<RunData> runs);

  /// The runs shown, in colour order: the live run, or the stored runs of showStored().
  const std::vector<const RunData*>& runs() const { return shown_; }
  /// Whether the live run is what is shown (false before it begins).
  bool isLive() const;
  /// Copies of the runs shown, for what must own them (a report).
  std::vector<RunData> copies() const;

 signals:
  /// Other runs are shown: a live run began, or stored runs replaced what was shown.
  void changed();
  /// The live run took a batch while it is shown (runs() holds it already).
  void liveAppended();

 private:
  const LiveRun* live_ = nullptr;
  std::vector<RunData> stored_;        ///< the runs of showStored()
  std::vector<const RunData*> shown_;  ///< the live run or stored_
};

}  // namespace accumlab::ui
