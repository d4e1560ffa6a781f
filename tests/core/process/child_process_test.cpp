// ChildProcess: exit codes, signals, the wall-time and address-space limits, and the last lines
// of stderr, with /bin/sh as the child.
#include "accumlab/child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <string>
#include <system_error>

namespace accumlab {
namespace {

ChildSpec shell(const std::string& script) {
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.stderr_lines = 2;
  return spec;
}

TEST(ChildProcess, ReportsTheExitCodeAndTheLastLinesOfStderr) {
  const ChildResult r = runChild(shell("echo one >&2; echo two >&2; echo three >&2; exit 3"));
  EXPECT_TRUE(r.exitedWith(3)) << r.describe();
  ASSERT_EQ(r.stderr_tail.size(), 2u);
  EXPECT_EQ(r.stderr_tail[0], "two");
  EXPECT_EQ(r.stderr_tail[1], "three");
  EXPECT_EQ(r.describe(), "exited with status 3");
}

TEST(ChildProcess, ReportsTheSignalThatEndedIt) {
  const ChildResult r = runChild(shell("kill -SEGV $$"));
  EXPECT_EQ(r.end, ChildResult::End::kSignaled);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.describe(), "was killed by signal 11");
}

TEST(ChildProcess, KillsAChildPastItsTimeLimit) {
  ChildSpec spec = shell("exec sleep 20");
  spec.timeout_s = 0.3;
  const ChildResult r = runChild(spec);
  EXPECT_EQ(r.end, ChildResult::End::kTimedOut);
  EXPECT_GE(r.wall_s, 0.3);
  EXPECT_LT(r.wall_s, 5.0);  // killed, not waited for: generous for a loaded machine
}

TEST(ChildProcess, GraceCapsOneWait) {
  ChildProcess child(shell("exec sleep 20"));
  EXPECT_GT(child.pid(), 0);
  const ChildResult r = child.wait(0.2);
  EXPECT_EQ(r.end, ChildResult::End::kTimedOut);
  EXPECT_EQ(child.pid(), 0);
}

TEST(ChildProcess, LimitsTheAddressSpace) {
  ChildSpec spec = shell("ulimit -v >&2");
  spec.address_space_bytes = uint64_t{2} << 30;
  const ChildResult r = runChild(spec);
  ASSERT_TRUE(r.exitedWith(0)) << r.describe();
  ASSERT_EQ(r.stderr_tail.size(), 1u);
  EXPECT_EQ(r.stderr_tail[0], "2097152");  // KiB
}

TEST(ChildProcess, CountsTheSharedLibrariesMappedIntoThisProcess) {
  // This test program links LibTorch (at least libtorch_cpu, hundreds of MB) and libc.
  const uint64_t mapped = mappedLibraryBytes();
  EXPECT_GT(mapped, uint64_t{100} << 20);
  EXPECT_LT(mapped, uint64_t{64} << 30);
  // Mapping more shared objects does not shrink it.
  EXPECT_GE(mappedLibraryBytes(), mapped);
}

TEST(ChildProcess, StartsWithOnlyTheStandardDescriptorsAndNoBlockedSignal) {
  // A descriptor without close-on-exec (a store file opened by a library) and a signal blocked
  // here (as the app's signal watcher does) would both pass through exec.
  const int inherited = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(inherited, 3);
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  const std::string fd = "/proc/self/fd/" + std::to_string(inherited);
  const ChildResult r = runChild(shell("test -e " + fd + " && echo open >&2 || echo closed >&2;" +
                                       " grep SigBlk /proc/self/status >&2"));
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(inherited);
  ASSERT_TRUE(r.exitedWith(0)) << r.describe();
  ASSERT_EQ(r.stderr_tail.size(), 2u);
  EXPECT_EQ(r.stderr_tail[0], "closed");
  EXPECT_EQ(r.stderr_tail[1], "SigBlk:\t0000000000000000");
}

TEST(ChildProcess, AProgramThatCannotStartThrows) {
  ChildSpec spec;
  spec.argv = {"/nonexistent/program"};
  try {
    ChildProcess child(spec);
    FAIL() << "started /nonexistent/program";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOENT);
  }
}

}  // namespace
}  // namespace accumlab
