// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace accumlab::testing {

/// The largest relative difference allowed between accum and big-batch (weights after a
/// run of hundreds of steps, or gradients at shared weights): rounding level per dtype.
inline constexpr double kFloat32Tolerance = 1e-5;
inline constexpr double kFloat64Tolerance = 1e-12;

}  // namespace accumlab::testing
