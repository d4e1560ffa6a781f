// SPDX-License-Identifier: GPL-3.0-or-later
// ChildProcess: exit codes, signals, the wall-time and address-space limits, and the last lines
// of stderr, with /bin/sh as the child.
#include "accumlab/child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

namespace accumlab {
namespace {

ChildSpec shell(const std::string& script) {
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.stderr_lines = 2;
  return spec;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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

TEST(ChildProcess, AChildPastItsMemoryIsStopped) {
  // Writes 256 MiB, then waits: stopped at 64 MiB by the parent's watch of its resident
  // memory, long before it would end by itself.
  ChildSpec spec;
  spec.argv = {"/usr/bin/python3", "-c",
               "import time\nb = bytearray(b'x') * (256 << 20)\ntime.sleep(30)"};
  spec.memory_bytes = uint64_t{64} << 20;
  const ChildResult r = runChild(spec);
  EXPECT_EQ(r.end, ChildResult::End::kOutOfMemory) << r.describe();
  EXPECT_EQ(r.describe(), "used more than 64 MiB of memory");
  EXPECT_LT(r.wall_s, 20.0);
}

TEST(ChildProcess, AChildWithinItsMemoryRuns) {
  ChildSpec spec = shell("exit 0");
  spec.memory_bytes = uint64_t{64} << 20;
  EXPECT_TRUE(runChild(spec).exitedWith(0));
}

TEST(ChildProcess, SharedMemoryCountsTowardsTheBound) {
  // Anonymous shared memory (RssShmem) is the child's too: 256 MiB of it, one byte a page.
  ChildSpec spec;
  spec.argv = {"/usr/bin/python3", "-c",
               "import mmap, time\nm = mmap.mmap(-1, 256 << 20)\n"
               "for i in range(0, 256 << 20, 4096): m[i] = 1\ntime.sleep(30)"};
  spec.memory_bytes = uint64_t{64} << 20;
  const ChildResult r = runChild(spec);
  EXPECT_EQ(r.end, ChildResult::End::kOutOfMemory) << r.describe();
  EXPECT_LT(r.wall_s, 20.0);
}

TEST(ChildProcess, ReadsTheResidentMemoryOfAProcess) {
  // This test program has LibTorch's allocations and more: well above a MiB, below 64 GiB.
  const uint64_t mine = residentAnonymousBytes(::getpid());
  EXPECT_GT(mine, uint64_t{1} << 20);
  EXPECT_LT(mine, uint64_t{64} << 30);
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

TEST(ChildProcess, WritesStdoutAndStderrToFilesItEmpties) {
  const std::string dir = std::filesystem::temp_directory_path() / "accumlab-child-XXXXXX";
  std::string folder = dir;
  ASSERT_NE(::mkdtemp(folder.data()), nullptr);
  const std::string out = folder + "/out", err = folder + "/err";
  std::ofstream(out) << "an older and much longer text\n";
  ChildSpec spec = shell("echo to-out; echo to-err >&2; exit 4");
  spec.stderr_lines = 0;
  spec.stdout_file = out;
  spec.stderr_file = err;
  const ChildResult r = runChild(spec);
  EXPECT_TRUE(r.exitedWith(4)) << r.describe();
  EXPECT_TRUE(r.stderr_tail.empty());
  EXPECT_EQ(readFile(out), "to-out\n");
  EXPECT_EQ(readFile(err), "to-err\n");
  EXPECT_EQ(std::filesystem::status(err).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  // A file that cannot be made is a child that cannot start, with the reason.
  spec.stdout_file = folder + "/no/such/folder/out";
  try {
    ChildProcess child(spec);
    FAIL() << "started with stdout in a missing folder";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOENT);
  }
  spec.stdout_file.clear();
  spec.stderr_lines = 1;  // stderr both read and in a file
  EXPECT_THROW(ChildProcess child(spec), std::invalid_argument);
  std::filesystem::remove_all(folder);
}

TEST(ChildProcess, PollReapsOnceWithoutBlocking) {
  ChildProcess child(shell("sleep 0.3; exit 5"));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(child.poll().has_value());
  EXPECT_LT(secondsSince(t0), 0.2);
  std::optional<ChildResult> r;
  while (!(r = child.poll())) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(r->exitedWith(5)) << r->describe();
  EXPECT_GE(r->wall_s, 0.3);
  EXPECT_EQ(child.pid(), 0);
  EXPECT_FALSE(child.poll().has_value());  // reaped: nothing more to report
}

TEST(ChildProcess, PollKillsAChildPastItsTimeLimit) {
  ChildSpec spec = shell("exec sleep 20");
  spec.timeout_s = 0.2;
  ChildProcess child(spec);
  std::optional<ChildResult> r;
  while (!(r = child.poll())) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(r->end, ChildResult::End::kTimedOut);
  EXPECT_LT(r->wall_s, 5.0);
}

TEST(ChildProcess, WaitAnyReturnsTheFirstToEnd) {
  ChildProcess slow(shell("exec sleep 20"));
  ChildProcess quick(shell("sleep 0.2; exit 7"));
  const std::vector<ChildProcess*> both = {&slow, &quick};
  // Nothing ends within 50 ms.
  EXPECT_FALSE(ChildProcess::waitAny(both, 0.05).has_value());
  const auto t0 = std::chrono::steady_clock::now();
  const std::optional<ChildProcess::End> end = ChildProcess::waitAny(both, 10);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->index, 1u);
  EXPECT_TRUE(end->result.exitedWith(7)) << end->result.describe();
  EXPECT_LT(secondsSince(t0), 5.0);
  slow.sendSignal(SIGTERM);
  const std::optional<ChildProcess::End> last = ChildProcess::waitAny(both, 10);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->index, 0u);
  EXPECT_EQ(last->result.signal, SIGTERM);
  // Both reaped: nothing to wait for.
  EXPECT_FALSE(ChildProcess::waitAny(both, 0).has_value());
}

TEST(ChildProcess, LeadsAProcessGroupOfItsOwnOnlyWhenAsked) {
  // Field 5 of /proc/PID/stat is the process group.
  const std::string leads = "[ \"$(cut -d' ' -f5 /proc/$$/stat)\" = \"$$\" ]";
  ChildSpec spec = shell(leads);
  EXPECT_TRUE(runChild(spec).exitedWith(1));
  spec.own_process_group = true;
  EXPECT_TRUE(runChild(spec).exitedWith(0));
}

TEST(ChildProcess, DiesWithTheThreadThatStartedItUnlessToldNotTo) {
  for (const bool dies : {true, false}) {
    ChildSpec spec = shell("exec sleep 20");
    spec.dies_with_parent = dies;
    std::unique_ptr<ChildProcess> child;
    std::thread([&] { child = std::make_unique<ChildProcess>(spec); }).join();
    const ChildResult r = child->wait(dies ? 5.0 : 0.3);
    if (dies) {
      EXPECT_EQ(r.end, ChildResult::End::kSignaled) << r.describe();
      EXPECT_EQ(r.signal, SIGKILL);
    } else {
      EXPECT_EQ(r.end, ChildResult::End::kTimedOut) << r.describe();  // still ran
    }
  }
}

}  // namespace
}  // namespace accumlab
