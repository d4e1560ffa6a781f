// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/process_identity.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace accumlab::store {

namespace {

std::string readFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// Field 22 (starttime) of /proc/PID/stat and the state letter; false when there is no such
/// process. The command name (field 2) may contain spaces and parentheses, so parse after
/// its last ')'.
bool readProcStat(int64_t pid, char& state, int64_t& start_ticks) {
  const std::string stat = readFirstLine("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream in(stat.substr(close + 1));
  in >> state;
  std::string field;
  for (int i = 4; i < 22 && in >> field; ++i) {
  }
  return static_cast<bool>(in >> start_ticks);
}

}  // namespace

ProcessIdentity ProcessIdentity::current() {
  ProcessIdentity id;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) id.host = host;
  id.boot_id = readFirstLine("/proc/sys/kernel/random/boot_id");
  id.pid = static_cast<int64_t>(getpid());
  char state = 0;
  if (!readProcStat(id.pid, state, id.start_ticks)) id.start_ticks = 0;
  return id;
}

Liveness liveness(const ProcessIdentity& writer) {
  const ProcessIdentity self = ProcessIdentity::current();
  if (writer.host != self.host) return Liveness::kUnknown;
  if (!writer.boot_id.empty() && !self.boot_id.empty() && writer.boot_id != self.boot_id) {
    return Liveness::kGone;  // the machine rebooted since
  }
  if (writer.pid == self.pid && writer.start_ticks == self.start_ticks) return Liveness::kAlive;
  char state = 0;
  int64_t start_ticks = 0;
  if (readProcStat(writer.pid, state, start_ticks)) {
    // A zombie has exited; a different start time means the pid was reused.
    if (state == 'Z' || (writer.start_ticks != 0 && start_ticks != writer.start_ticks)) {
      return Liveness::kGone;
    }
    return Liveness::kAlive;
  }
  if (self.start_ticks != 0) return Liveness::kGone;  // /proc works here and the pid is gone
  // No /proc (not Linux): ask the kernel whether the pid exists.
  return (kill(static_cast<pid_t>(writer.pid), 0) == 0 || errno == EPERM) ? Liveness::kAlive
                                                                          : Liveness::kGone;
}

}  // namespace accumlab::store
