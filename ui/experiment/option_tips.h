// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include "accumlab/experiment_config.h"

namespace accumlab::ui {

/// What each arm of the comparison (no-accum, accum, big-batch) trains, for its check box.
QString comparedArmTip(ArmKind arm);
/// What each short-window policy does at an epoch's end, for its item in the picker.
QString windowPolicyTip(WindowPolicy policy);

}  // namespace accumlab::ui
