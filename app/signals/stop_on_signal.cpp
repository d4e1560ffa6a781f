// SPDX-License-Identifier: GPL-3.0-or-later
#include "stop_on_signal.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace accumlab::app {

namespace {

// Shared with the signal handler, so plain globals of lock-free types.
std::atomic<int> g_count{0};       ///< signals received
std::atomic<int> g_first{0};       ///< the first signal's number
std::atomic<int> g_last{0};        ///< the latest signal's number
int g_wake[2] = {-1, -1};          ///< the self-pipe: the handler writes, the watcher reads
constexpr char kSignalByte = 's';  ///< a signal came
constexpr char kQuitByte = 'q';    ///< the watcher should end

static_assert(std::atomic<int>::is_always_lock_free, "used from a signal handler");

extern "C" void onStopSignal(int signo) {
  const int saved = errno;
  int expected = 0;
  g_first.compare_exchange_strong(expected, signo);
  g_last.store(signo);
  g_count.fetch_add(1);
  const char byte = kSignalByte;
  [[maybe_unused]] const ssize_t n = ::write(g_wake[1], &byte, 1);
  errno = saved;
}

void say(const char* text) {
  std::fputs(text, stderr);
  std::fflush(stderr);
}

}  // namespace

StopOnSignal::StopOnSignal(std::string program, std::string notice, std::function<void()> stop)
    : program_(std::move(program)), notice_(std::move(notice)), stop_(std::move(stop)) {
  g_count = 0;
  g_first = 0;
  g_last = 0;
  if (::pipe2(g_wake, O_CLOEXEC) != 0) {
    g_wake[0] = g_wake[1] = -1;
    return;  // no clean stop: the signals keep their default action
  }
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
  watcher_ = std::thread([this] { watch(); });
}

StopOnSignal::~StopOnSignal() {
  if (g_wake[1] < 0) return;
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  const char byte = kQuitByte;
  [[maybe_unused]] const ssize_t n = ::write(g_wake[1], &byte, 1);
  if (watcher_.joinable()) watcher_.join();
  ::close(g_wake[0]);
  ::close(g_wake[1]);
  g_wake[0] = g_wake[1] = -1;
}

int StopOnSignal::signalReceived() const { return g_first.load(); }

void StopOnSignal::watch() {
  bool stopping = false;
  for (;;) {
    char byte = 0;
    const ssize_t n = ::read(g_wake[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == kQuitByte) return;
    if (g_count.load() >= 2) {
      // The user asked twice: no flush, no summary. The next open of the store marks the
      // runs left `running` as `interrupted`.
      say(("\n" + program_ + ": quit at once; runs that were going show as interrupted\n").c_str());
      std::_Exit(128 + g_last.load());
    }
    if (!stopping) {
      stopping = true;
      say(("\n" + program_ + ": " + notice_ + " (Ctrl-C again to quit at once)\n").c_str());
      stop_();
    }
  }
}

}  // namespace accumlab::app
