// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace accumlab::store {

/// Now as ISO 8601 UTC with seconds, e.g. "2024-05-01T12:00:00Z" (sorts as text).
inline std::string isoUtcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Now in seconds since the Unix epoch (heartbeats).
inline double unixSecondsNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Seconds since the Unix epoch of an ISO 8601 UTC time as isoUtcNow() writes it; 0 when
/// `iso` is not one.
inline double unixSecondsOf(const std::string& iso) {
  std::tm tm{};
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

}  // namespace accumlab::store
