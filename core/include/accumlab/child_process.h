// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace accumlab {

/// What to start as a child process (fork + exec, no shell, no PATH search) and within which
/// limits. The child starts with no signal blocked, SIGINT, SIGTERM, SIGPIPE and SIGQUIT at
/// their defaults and only fds 0–2 open.
struct ChildSpec {
  std::vector<std::string> argv;     ///< the program's path first, then its arguments
  uint64_t address_space_bytes = 0;  ///< the child's RLIMIT_AS (0: the parent's limit)
  /// The child's resident anonymous memory (residentAnonymousBytes: its heap, stacks and
  /// shared memory, not the pages of its program and libraries), read from /proc while
  /// wait(), poll() or waitAny() watch it;
  /// past it the child is killed (SIGKILL) and reported as kOutOfMemory (0: not watched).
  /// Unlike RLIMIT_AS it holds under AddressSanitizer, whose shadow memory is reserved
  /// address space, not resident memory. A child may overshoot it by what it touches between
  /// two looks (every 5 ms).
  uint64_t memory_bytes = 0;
  double timeout_s = 0;         ///< wall time after which wait() or poll() kills it (0: none)
  bool discard_stdout = false;  ///< stdout to /dev/null instead of the parent's
  /// Keep this many last lines of its stderr in ChildResult (0: stderr is the parent's).
  size_t stderr_lines = 0;
  /// Its stdout to this file, made (mode 0600) or emptied; "" for discard_stdout's choice.
  std::string stdout_file;
  /// Its stderr to this file, made (mode 0600) or emptied; "" for stderr_lines' choice (only
  /// one of the two may be set).
  std::string stderr_file;
  /// It leads a process group of its own, so that a terminal's Ctrl-C reaches the parent only.
  bool own_process_group = false;
  /// It is killed (SIGKILL) when the *thread* that started it exits (PR_SET_PDEATHSIG): only
  /// for a starting thread that outlives the child.
  bool dies_with_parent = true;
};

/// How a child ended.
struct ChildResult {
  enum class End { kExited, kSignaled, kTimedOut, kOutOfMemory };
  End end = End::kExited;
  int exit_code = 0;          ///< its exit status, when kExited (-1: reaped elsewhere, unknown)
  int signal = 0;             ///< the signal that ended it, when kSignaled
  double wall_s = 0;          ///< from start to its end
  uint64_t memory_bytes = 0;  ///< the spec's memory_bytes (for describe())
  std::vector<std::string> stderr_tail;  ///< its last stderr lines, oldest first

  /// True when it exited with `code`.
  bool exitedWith(int code) const { return end == End::kExited && exit_code == code; }
  /// "exited with status 3", "was killed by signal 11", "ran longer than 30 s" or "used more
  /// than 2048 MiB of memory".
  std::string describe() const;
};

/// One started child process. Used by one thread at a time (not thread-safe); with
/// ChildSpec::dies_with_parent, the thread that started it must outlive it.
class ChildProcess {
 public:
  /// Starts `spec.argv`. Throws std::system_error when it cannot be started (fork or exec
  /// failed, with exec's reason).
  explicit ChildProcess(const ChildSpec& spec);
  /// Kills (SIGKILL) and reaps a child that has not been waited for.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Its process id (0 once reaped).
  pid_t pid() const { return pid_; }
  /// Sends `signo` to the child while it has not been reaped.
  void sendSignal(int signo);
  /// Waits until it exits, reading its stderr meanwhile; past `timeout_s` it is killed
  /// (SIGKILL) and reported as kTimedOut, past `memory_bytes` as kOutOfMemory. `grace_s` > 0
  /// caps this wait at `grace_s` more seconds (kill and kTimedOut too).
  /// wait() on a child already reaped says kExited with exit_code -1.
  ChildResult wait(double grace_s = 0);
  /// Does not block: reaps it if it has ended (killing it first when past `timeout_s`, as
  /// kTimedOut, or past `memory_bytes`, as kOutOfMemory) and returns how; nullopt while it
  /// runs, and once it has been reaped.
  std::optional<ChildResult> poll();

  /// Which of several children ended, and how (ChildProcess::waitAny).
  struct End {
    size_t index;  ///< in the list given to waitAny
    ChildResult result;
  };
  /// Waits until one of `children` that has not been reaped ends, and reaps it; nullopt when
  /// `timeout_s` (> 0) passed first or every one was already reaped.
  static std::optional<End> waitAny(const std::vector<ChildProcess*>& children, double timeout_s);

 private:
  void readStderr(bool drain);
  void closeStderr();
  /// Kills it (SIGKILL), reaps it and reports `why` (kTimedOut or kOutOfMemory).
  ChildResult killFor(ChildResult::End why);
  /// The result of a child just reaped with wait status `status` (or lost: reaped elsewhere);
  /// `killed_for` is kExited unless the parent killed it for time or memory.
  ChildResult reaped(int status, bool lost, ChildResult::End killed_for);
  /// Whether its resident anonymous memory is past `memory_bytes_`.
  bool pastMemory() const;

  pid_t pid_ = 0;
  int stderr_fd_ = -1;
  size_t stderr_lines_ = 0;
  double timeout_s_ = 0;
  uint64_t memory_bytes_ = 0;
  double started_s_ = 0;
  std::string stderr_text_;
};

/// The resident anonymous memory of process `pid`, private and shared (RssAnon + RssShmem in
/// /proc/PID/status), in bytes; 0 when it cannot be read (the process has ended).
uint64_t residentAnonymousBytes(pid_t pid);

/// Starts `spec` and waits for it.
ChildResult runChild(const ChildSpec& spec);

}  // namespace accumlab
