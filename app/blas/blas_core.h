// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace accumlab {

/// Before the engine starts (accumlab-cli before it executes the engine, accumlab before it
/// starts again with the choice made): where OpenBLAS would run its generic kernels on this CPU (it
/// falls back to "Prescott", SSE3, on a CPU it does not recognise, such as a virtual
/// machine's "Intel Xeon Processor" with AVX-512) and OPENBLAS_CORETYPE is not set, sets
/// OPENBLAS_CORETYPE to the kernels the CPU's instructions can run: SkylakeX with AVX-512,
/// Haswell with AVX2 and FMA. Returns the core type it set, or nullptr where it set none.
/// docs/performance.md measures the difference.
const char* chooseBlasCore();

}  // namespace accumlab
