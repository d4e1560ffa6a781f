// SPDX-License-Identifier: GPL-3.0-or-later
// Opening the store never touches the file with a descriptor of its own: closing one would drop
// the POSIX locks of every connection this process has open on the file. And where code of
// the process does open and close a store file behind SQLite (a file dialog sniffing types),
// the store's locks survive it (store/store_file.cpp).
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>

#include "accumlab/input_error.h"
#include "store/store_file.h"
#include "store_fixture.h"

namespace accumlab {
namespace {

using testing::fileBytes;
using testing::makeInfo;
using testing::makeStep;
using testing::StoreTest;

/// How many locks /proc/locks lists for this process on the file `path`: its POSIX locks, and
/// the open-file-description locks that the store takes instead where the kernel has them
/// (listed without an owner; no other process locks a test's own file).
int ownLocksOn(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  std::ifstream locks("/proc/locks");
  const std::string pid = std::to_string(getpid());
  const std::string inode = ":" + std::to_string(st.st_ino);
  int count = 0;
  std::string line;
  while (std::getline(locks, line)) {
    // "1: POSIX  ADVISORY  READ 1234 fe:00:5678 1073741826 1073742335"
    std::istringstream in(line);
    std::string id, kind, advisory, mode, owner, device;
    in >> id >> kind >> advisory >> mode >> owner >> device;
    const bool ours = (kind == "POSIX" && owner == pid) || kind == "OFDLCK";
    if (ours && device.size() > inode.size() &&
        device.compare(device.size() - inode.size(), inode.size(), inode) == 0) {
      ++count;
    }
  }
  return count;
}

/// Runs `python3 -c code db` as another process (a second SQLite library, as the CLI is).
int runPython(const std::string& code, const std::string& db) {
  pid_t pid = 0;
  std::string exe = "/usr/bin/python3", flag = "-c", body = code, arg = db;
  char* argv[] = {exe.data(), flag.data(), body.data(), arg.data(), nullptr};
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, environ) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// With 20 steps stored through `writer` beside `gui`, another process opens the file and
/// closes its only connection: were this process's locks gone, that close would checkpoint and
/// delete the -wal and -shm files we still use. Then 20 more steps must reach the file that
/// other processes read, whole.
void expectAnotherProcessClosingLeavesTheWal(RunStore& gui, StoreSink& writer) {
  const std::string db = gui.path();
  const std::string code =
      "import sqlite3, sys\n"
      "c = sqlite3.connect(sys.argv[1])\n"
      "n = c.execute('SELECT count(*) FROM step_metrics').fetchone()[0]\n"
      "c.close()\n"
      "sys.exit(0 if n == 20 else 3)\n";
  ASSERT_EQ(runPython(code, db), 0);
  EXPECT_TRUE(std::filesystem::exists(db + "-wal"));
  EXPECT_TRUE(std::filesystem::exists(db + "-shm"));

  // What this process writes afterwards reaches the file other processes read.
  for (int64_t s = 21; s <= 40; ++s) writer.onStep(makeStep(ArmKind::kAccum, s));
  writer.finish();
  const std::string code40 =
      "import sqlite3, sys\n"
      "c = sqlite3.connect(sys.argv[1])\n"
      "n = c.execute('SELECT count(*) FROM step_metrics').fetchone()[0]\n"
      "ok = c.execute('PRAGMA integrity_check').fetchone()[0] == 'ok'\n"
      "sys.exit(0 if n == 40 and ok else 3)\n";
  EXPECT_EQ(runPython(code40, db), 0);
  EXPECT_EQ(gui.series(writer.runs()[0].run_id).steps.size(), 40u);
}

TEST_F(StoreTest, OpeningASecondConnectionKeepsTheFirstsLocks) {
  RunStore gui(db_);  // the app's GUI-thread connection
  gui.listRuns();
  const int held = ownLocksOn(db_);
  ASSERT_GT(held, 0) << "a WAL connection holds a shared lock on the file while it is open";
  {
    StoreSink writer(db_);  // the app's writer thread opens the second connection
    EXPECT_EQ(ownLocksOn(db_), held);
    RunStore reader(db_);
    EXPECT_EQ(ownLocksOn(db_), held);
  }
  EXPECT_EQ(ownLocksOn(db_), held);  // closing the others leaves the first's lock
  gui.listRuns();
  EXPECT_EQ(ownLocksOn(db_), held);
}

TEST_F(StoreTest, AnotherProcessClosingLeavesTheOpenStoresWalInPlace) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3";
  RunStore gui(db_);
  StoreSink writer(db_);
  writer.onRunStarted(makeInfo({ArmKind::kAccum}));
  for (int64_t s = 1; s <= 20; ++s) writer.onStep(makeStep(ArmKind::kAccum, s));
  writer.finish();
  ASSERT_TRUE(std::filesystem::exists(db_ + "-wal"));

  expectAnotherProcessClosingLeavesTheWal(gui, writer);
}

// The failure a file dialog caused: code outside SQLite opens and closes the store's files
// while the app's connections are open; then another process opens the store and closes it.
// With POSIX locks that close found no other user, checkpointed, and deleted the -wal and -shm
// files the app still wrote to. The store's locks belong to SQLite's descriptors instead.
TEST_F(StoreTest, AForeignCloseOfTheStoresFilesLeavesItsLocks) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3";
  ASSERT_TRUE(store::storeLocksSurviveForeignClose()) << "this kernel lacks OFD locks";
  RunStore gui(db_);
  StoreSink writer(db_);
  writer.onRunStarted(makeInfo({ArmKind::kAccum}));
  for (int64_t s = 1; s <= 20; ++s) writer.onStep(makeStep(ArmKind::kAccum, s));
  writer.finish();
  const int held = ownLocksOn(db_);
  ASSERT_GT(held, 0);
  for (const std::string& file : {db_, db_ + "-wal", db_ + "-shm"}) {
    std::ifstream sniff(file, std::ios::binary);  // what a MIME sniffer does
    char head[64];
    sniff.read(head, sizeof head);
  }
  EXPECT_EQ(ownLocksOn(db_), held);

  expectAnotherProcessClosingLeavesTheWal(gui, writer);
}

TEST_F(StoreTest, EmptyFileBecomesAStore) {
  { std::ofstream touch(db_, std::ios::binary); }
  {
    RunStore store(db_);
    EXPECT_TRUE(store.listRuns().empty());
  }
  SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), RunStore::schemaVersion());
}

TEST_F(StoreTest, ShortOrForeignFilesAreRefusedUntouched) {
  // One byte (SQLite alone would read it as an empty database), a cut header, and binary noise.
  std::string noise(5000, '\0');
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 2654435761u) >> 13);
  for (const std::string& content : {std::string("x"), std::string("SQLite format"), noise}) {
    {
      std::ofstream out(db_, std::ios::binary | std::ios::trunc);
      out << content;
    }
    try {
      RunStore store(db_);
      ADD_FAILURE() << "a file of " << content.size() << " bytes was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(db_ + " is not an SQLite database"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(fileBytes(db_), content);
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      EXPECT_FALSE(std::filesystem::exists(db_ + suffix)) << suffix;
    }
  }
}

}  // namespace
}  // namespace accumlab
