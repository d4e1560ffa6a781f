// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <mutex>

namespace accumlab::ui {

/// Serialises the app's users of LibTorch's global random generator: a training run (its
/// arms seed it every window) and the experiment panel's memory probe (it seeds it to build
/// a model). A run holds it for its whole length on the training thread; a probe only tries
/// it, and gives way to a run. Any thread.
std::mutex& globalGeneratorGate();

}  // namespace accumlab::ui
