// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

#include "accumlab/experiment_config.h"

class QWidget;

namespace accumlab::ui {

/// File → Open experiment… and Save experiment…: the experiment as the JSON file that
/// `accumlab-cli run --config FILE` and `accumlab --config FILE` read (docs/cli.md), both
/// ways. GUI thread; each asks for the file in a dialog.
namespace experiment_file {

/// The experiment in the file the user picks; nothing when they cancel. Throws InputError
/// naming the file and what is wrong with it.
std::optional<ExperimentConfig> open(QWidget* parent);
/// Writes `config` to the file the user picks, whole or not at all; the path written, or an
/// empty string when they cancel. Throws InputError naming the file when it cannot be
/// written.
QString save(QWidget* parent, const ExperimentConfig& config);

}  // namespace experiment_file
}  // namespace accumlab::ui
