// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QToolButton>
#include <vector>

#include "accumlab/experiment_config.h"

class QAction;

namespace accumlab::ui {

/// "Common mistakes ▾": a button whose menu adds the pitfall arms (docs/pitfalls.md), the
/// wrong accumulation recipes, as arms beside accum; each entry's tooltip says the mistake in
/// plain words with the short loop that makes it. One row, so it fits a 1024×768 screen.
class PitfallPicker : public QToolButton {
  Q_OBJECT

 public:
  explicit PitfallPicker(QWidget* parent = nullptr);

  /// The pitfall arms chosen, in pitfallArms() order.
  std::vector<ArmKind> chosen() const;
  /// Chooses the pitfall arms among `config`'s arms and greys out those it cannot run (no
  /// clip norm for clip-each, a constant LR for schedule-per-micro: the panel edits neither),
  /// saying why in their tooltips; emits nothing.
  void setConfig(const ExperimentConfig& config);
  /// After an edit of the form (the clip norm, the schedule): offers the arms `config` can
  /// run, and unchooses a chosen one it no longer can (clip-each once the clip norm is off).
  void offerFor(const ExperimentConfig& config);

  /// The tooltip of pitfall arm `arm`: the mistake, what theory says, the wrong loop.
  static QString explanation(ArmKind arm);

 signals:
  /// The user chose or dropped a pitfall arm.
  void chosenChanged();

 private:
  void updateText();

  std::vector<QAction*> actions_;  ///< one per pitfallArms() entry
};

}  // namespace accumlab::ui
