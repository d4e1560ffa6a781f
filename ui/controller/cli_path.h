// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace accumlab::ui {

/// The accumlab-cli program the app starts for work in other processes (a sweep's points,
/// the ranks 1…N−1 of a data-parallel run): $ACCUMLAB_CLI when it names a program (a build
/// tree's, in the tests), else the one beside the app, in a build tree's app/cli, or on the
/// PATH; empty when there is none.
QString accumlabCliPath();

}  // namespace accumlab::ui
