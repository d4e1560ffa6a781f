// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "accumlab/config_overrides.h"

namespace accumlab::ui {

/// The desktop app's command line (docs/app.md):
/// `accumlab [--run] [--config FILE] [--screenshot FILE --quit-after SECONDS] …`.
struct AppOptions {
  bool run = false;  ///< start training at once
  /// --config FILE or --preset NAME instead of the last experiment, and the experiment's
  /// --data, --model, -m, -k and --samples over it (as `accumlab-cli run` takes them).
  ConfigOverrides experiment;
  QString screenshot;         ///< save a PNG of the window before quitting
  double quit_after = 0;      ///< quit after this many seconds (0: never)
  QString db;                 ///< run database (empty: the default)
  bool no_store = false;      ///< do not store runs
  bool fresh = false;         ///< ignore the saved experiment and layout
  QString lesson;             ///< open the Lessons tab on this lesson (number, id or file)
  QString predict;            ///< the answer to the lesson's question
  bool presentation = false;  ///< start in Presentation mode
  std::vector<int64_t> open;  ///< stored runs to show at start, overlaid when several
};

/// Parses `arguments` (argv, program name first). Returns 0 to go on, otherwise the exit
/// code to quit with (0 after --help/--version is reported as -1 with the text in `message`).
int parseAppOptions(const QStringList& arguments, AppOptions* out, QString* message);

}  // namespace accumlab::ui
