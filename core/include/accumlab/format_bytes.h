// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace accumlab {

/// The smallest unit formatBytes writes.
enum class ByteUnit { kKiB, kMiB };

/// Bytes for people, the one way AccumLab writes them: "70 KiB" below one MiB (or "0.1 MiB"
/// when `smallest` is kMiB), "18.3 MiB" below one GiB, "1.25 GiB" from there on.
inline std::string formatBytes(double bytes, ByteUnit smallest = ByteUnit::kKiB) {
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0;
  char buf[32];
  if (smallest == ByteUnit::kKiB && std::abs(bytes) < kMiB) {
    std::snprintf(buf, sizeof buf, "%.0f KiB", bytes / kKiB);
  } else if (std::abs(bytes) < kGiB) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / kMiB);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / kGiB);
  }
  return buf;
}

}  // namespace accumlab
