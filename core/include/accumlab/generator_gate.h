// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <mutex>

namespace accumlab {

/// Serialises a process's users of LibTorch's global random generators, which a run's arms
/// reseed before every window (ArmRandom) and a built-in model's factory seeds to initialise
/// its weights: in the app, a training run and the experiment panel's memory probe
/// (probeMemoryModel). A run holds it for its whole length on the training thread; a probe
/// only tries it, and gives way to a run. The engine does not take it itself: several
/// Trainers in one process (the data-parallel tests' ranks) train at once and meet in every
/// window's all-reduce. Any thread.
std::mutex& globalGeneratorGate();

}  // namespace accumlab
