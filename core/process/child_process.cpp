// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

namespace accumlab {

namespace {

// Bytes of a child's stderr kept while it runs: enough for the last lines, bounded when a
// child floods it.
constexpr size_t kStderrKeepBytes = 64 * 1024;
// How often wait() and waitAny() look at children whose stderr is not being read.
constexpr auto kPollInterval = std::chrono::milliseconds(5);

// The lines of /proc/PID/status (Linux 4.5 and later) that residentAnonymousBytes adds up:
// private anonymous memory (heap, stacks) and shared anonymous memory; not RssFile, the pages
// of the program and its libraries.
constexpr const char* kResidentKeys[] = {"RssAnon:", "RssShmem:"};

double nowS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Closes every descriptor from `first` on except `keep` (the exec-error pipe, close-on-exec).
// close_range is one system call, so it is safe between fork and exec.
void closeFrom(int first, int keep) {
#ifdef SYS_close_range
  if (keep >= first) {
    if (keep > first) ::syscall(SYS_close_range, first, keep - 1, 0);
    ::syscall(SYS_close_range, keep + 1, ~0U, 0);
  } else {
    ::syscall(SYS_close_range, first, ~0U, 0);
  }
#else
  (void)first;
  (void)keep;
#endif
}

// In the child: reports `error` to the parent through the exec-error pipe and ends.
[[noreturn]] void failChild(int exec_error_write, int error) {
  (void)!::write(exec_error_write, &error, sizeof error);
  ::_exit(127);
}

// In the child: `fd` to `path`, made (0600) or emptied; reports a failure as exec's would be.
void redirectChild(const std::string& path, int fd, int exec_error_write) {
  // c_str() of a const string neither allocates nor locks.
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (file < 0 || ::dup2(file, fd) < 0) failChild(exec_error_write, errno);
}

// The child, between fork and exec: only async-signal-safe calls (the parent may have other
// threads holding locks). Never returns.
[[noreturn]] void execChild(const ChildSpec& spec, char* const* argv, pid_t parent,
                            int stderr_write, int exec_error_write) {
  // The parent may block signals for a watcher thread (Ctrl-C handling); a blocked or ignored
  // SIGTERM would survive exec.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int signo : {SIGINT, SIGTERM, SIGPIPE, SIGQUIT}) ::signal(signo, SIG_DFL);
  if (spec.dies_with_parent) {
    // No orphan outlives its time limit: it dies with the thread that started it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
  }
  if (spec.own_process_group) ::setpgid(0, 0);
  if (spec.address_space_bytes > 0) {
    const rlimit limit{spec.address_space_bytes, spec.address_space_bytes};
    ::setrlimit(RLIMIT_AS, &limit);
  }
  if (!spec.stdout_file.empty()) {
    redirectChild(spec.stdout_file, STDOUT_FILENO, exec_error_write);
  } else if (spec.discard_stdout) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDOUT_FILENO);
  }
  if (!spec.stderr_file.empty()) redirectChild(spec.stderr_file, STDERR_FILENO, exec_error_write);
  if (stderr_write >= 0) ::dup2(stderr_write, STDERR_FILENO);
  closeFrom(3, exec_error_write);
  ::execv(argv[0], argv);
  failChild(exec_error_write, errno);
}

}  // namespace

uint64_t residentAnonymousBytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  uint64_t total = 0;
  for (std::string line; std::getline(status, line);) {
    // "RssAnon:\t  123456 kB"
    for (const char* key : kResidentKeys) {
      if (line.rfind(key, 0) == 0) {
        total += std::strtoull(line.c_str() + std::strlen(key), nullptr, 10) * 1024;
      }
    }
  }
  return total;
}

std::string ChildResult::describe() const {
  std::ostringstream out;
  switch (end) {
    case End::kExited:
      out << "exited with status " << exit_code;
      break;
    case End::kSignaled:
      out << "was killed by signal " << signal;
      break;
    case End::kTimedOut:
      out << "ran longer than " << std::floor(wall_s) << " s";
      break;
    case End::kOutOfMemory:
      out << "used more than " << (memory_bytes >> 20) << " MiB of memory";
      break;
  }
  return out.str();
}

ChildProcess::ChildProcess(const ChildSpec& spec)
    : stderr_lines_(spec.stderr_lines),
      timeout_s_(spec.timeout_s),
      memory_bytes_(spec.memory_bytes) {
  if (spec.argv.empty()) throw std::invalid_argument("ChildProcess: no program to start");
  if (spec.stderr_lines > 0 && !spec.stderr_file.empty()) {
    throw std::invalid_argument("ChildProcess: stderr goes to a file or is read, not both");
  }
  // Everything the child needs is prepared here: it may not allocate after fork.
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int stderr_pipe[2] = {-1, -1};
  if (stderr_lines_ > 0 && ::pipe2(stderr_pipe, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot start " + spec.argv[0]);
  }
  // Written by the child only when exec fails; closed by a successful exec.
  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) {
    const int error = errno;
    if (stderr_pipe[0] >= 0) {
      ::close(stderr_pipe[0]);
      ::close(stderr_pipe[1]);
    }
    throw std::system_error(error, std::generic_category(), "cannot start " + spec.argv[0]);
  }
  started_s_ = nowS();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) execChild(spec, argv.data(), parent, stderr_pipe[1], exec_error[1]);
  const int fork_error = errno;
  ::close(exec_error[1]);
  if (stderr_pipe[1] >= 0) ::close(stderr_pipe[1]);
  stderr_fd_ = stderr_pipe[0];
  if (pid < 0) {
    ::close(exec_error[0]);
    closeStderr();
    throw std::system_error(fork_error, std::generic_category(), "cannot start " + spec.argv[0]);
  }
  pid_ = pid;
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(exec_error[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(exec_error[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
    closeStderr();
    throw std::system_error(exec_errno, std::generic_category(), "cannot start " + spec.argv[0]);
  }
  if (stderr_fd_ >= 0) ::fcntl(stderr_fd_, F_SETFL, O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  closeStderr();
}

void ChildProcess::sendSignal(int signo) {
  if (pid_ > 0) ::kill(pid_, signo);
}

void ChildProcess::closeStderr() {
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
  stderr_fd_ = -1;
}

void ChildProcess::readStderr(bool drain) {
  if (stderr_fd_ < 0) return;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
    if (n > 0) {
      stderr_text_.append(buffer, static_cast<size_t>(n));
      if (stderr_text_.size() > 2 * kStderrKeepBytes) {
        stderr_text_.erase(0, stderr_text_.size() - kStderrKeepBytes);
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    // EOF: every writer is gone. EAGAIN: nothing more now; after the child's end, a grandchild
    // may still hold the pipe, and nothing it writes later is the child's.
    if (n == 0 || drain) closeStderr();
    return;
  }
}

ChildResult ChildProcess::wait(double grace_s) {
  if (pid_ <= 0) return reaped(0, true, ChildResult::End::kExited);
  const double deadline = grace_s > 0 ? nowS() + grace_s : 0;
  for (;;) {
    if (std::optional<ChildResult> result = poll()) return *result;
    if (deadline > 0 && nowS() >= deadline) return killFor(ChildResult::End::kTimedOut);
    if (stderr_fd_ >= 0) {
      pollfd p{stderr_fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(kPollInterval.count())) > 0) readStderr(false);
    } else {
      std::this_thread::sleep_for(kPollInterval);
    }
  }
}

std::optional<ChildResult> ChildProcess::poll() {
  if (pid_ <= 0) return std::nullopt;
  readStderr(false);
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == pid_) return reaped(status, false, ChildResult::End::kExited);
  // Reaped by someone else (SIGCHLD ignored): how it ended is unknown.
  if (done < 0 && errno != EINTR) return reaped(0, true, ChildResult::End::kExited);
  if (timeout_s_ > 0 && nowS() >= started_s_ + timeout_s_) {
    return killFor(ChildResult::End::kTimedOut);
  }
  if (pastMemory()) return killFor(ChildResult::End::kOutOfMemory);
  return std::nullopt;
}

bool ChildProcess::pastMemory() const {
  return memory_bytes_ > 0 && residentAnonymousBytes(pid_) > memory_bytes_;
}

std::optional<ChildProcess::End> ChildProcess::waitAny(const std::vector<ChildProcess*>& children,
                                                       double timeout_s) {
  const double deadline = timeout_s > 0 ? nowS() + timeout_s : 0;
  for (;;) {
    bool any = false;
    for (size_t i = 0; i < children.size(); ++i) {
      if (children[i]->pid() <= 0) continue;
      any = true;
      if (std::optional<ChildResult> result = children[i]->poll()) return End{i, *result};
    }
    if (!any || (deadline > 0 && nowS() >= deadline)) return std::nullopt;
    // Polled, not waitpid(-1): that would reap the children of other code in this process.
    std::this_thread::sleep_for(kPollInterval);
  }
}

ChildResult ChildProcess::killFor(ChildResult::End why) {
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  return reaped(status, false, why);
}

ChildResult ChildProcess::reaped(int status, bool lost, ChildResult::End killed_for) {
  ChildResult result;
  pid_ = 0;
  result.wall_s = nowS() - started_s_;
  result.memory_bytes = memory_bytes_;
  readStderr(true);
  if (killed_for != ChildResult::End::kExited) {
    result.end = killed_for;
  } else if (lost) {
    result.exit_code = -1;
  } else if (WIFSIGNALED(status)) {
    result.end = ChildResult::End::kSignaled;
    result.signal = WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  std::istringstream lines(stderr_text_);
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) all.push_back(line);
  }
  const size_t keep = std::min(all.size(), stderr_lines_);
  result.stderr_tail.assign(all.end() - static_cast<std::ptrdiff_t>(keep), all.end());
  return result;
}

ChildResult runChild(const ChildSpec& spec) { return ChildProcess(spec).wait(); }

}  // namespace accumlab
