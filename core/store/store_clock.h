#pragma once

#include <chrono>
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
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace accumlab::store
