// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/noise_estimator.h"

namespace accumlab {

NoiseSample estimateNoise(double b_small, double g_small_sq, double b_big, double g_big_sq) {
  NoiseSample s;
  s.g_sq = (b_big * g_big_sq - b_small * g_small_sq) / (b_big - b_small);
  s.trace_sigma = (g_small_sq - g_big_sq) / (1.0 / b_small - 1.0 / b_big);
  return s;
}

}  // namespace accumlab
