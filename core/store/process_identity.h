// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace accumlab::store {

/// Who writes a run: enough to tell later whether that process still exists, even after
/// its pid has been reused or the machine rebooted.
struct ProcessIdentity {
  std::string host;     ///< gethostname()
  std::string boot_id;  ///< /proc/sys/kernel/random/boot_id, empty where unknown
  int64_t pid = 0;
  int64_t start_ticks = 0;  ///< process start time since boot (/proc/PID/stat field 22)

  /// This process.
  static ProcessIdentity current();
};

/// What is known about a writer process from this machine.
enum class Liveness { kAlive, kGone, kUnknown };

/// Whether the process is still running: kUnknown when it ran on another host.
Liveness liveness(const ProcessIdentity& writer);

}  // namespace accumlab::store
