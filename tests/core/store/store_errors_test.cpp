// SPDX-License-Identifier: GPL-3.0-or-later
// Failures the user can act on: each is an InputError naming the file, and the rows already
// stored survive it.
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "accumlab/input_error.h"
#include "store/store_file.h"
#include "store_fixture.h"

namespace accumlab {
namespace {

using testing::fileBytes;
using testing::makeInfo;
using testing::makeStep;
using testing::StoreTest;

/// Stores one run of `steps` steps and closes the file; returns its id.
int64_t storeRun(const std::string& db, int64_t steps) {
  StoreSink sink(db);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  for (int64_t s = 1; s <= steps; ++s) sink.onStep(makeStep(ArmKind::kAccum, s));
  ArmSummary a;
  a.arm = ArmKind::kAccum;
  a.status = ArmStatus::kFinished;
  a.steps = steps;
  sink.onArmFinished(a);
  sink.finish();
  return sink.runs()[0].run_id;
}

/// Runs `fn`, expecting an InputError whose message names `path` and contains `words`.
template <typename Fn>
void expectInputError(Fn&& fn, const std::string& path, const std::string& words) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one about '" << words << "'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
}

int64_t stepRows(const std::string& db) {
  SQLite::Database raw = store::openStoreFile(db, SQLite::OPEN_READONLY, 0);
  return raw.execAndGet("SELECT count(*) FROM step_metrics").getInt64();
}

TEST_F(StoreTest, ReadOnlyFileIsReadableButRefusesWrites) {
  const int64_t id = storeRun(db_, 30);
  ASSERT_EQ(chmod(db_.c_str(), 0444), 0);
  const std::string before = fileBytes(db_);
  {
    RunStore store(db_);
    EXPECT_EQ(store.listRuns().size(), 1u);
    EXPECT_EQ(store.series(id).steps.size(), 30u);
    expectInputError([&] { store.addTags(id, {"x"}); }, db_, "read-only");
    expectInputError([&] { store.deleteRuns({id}); }, db_, "read-only");
  }
  expectInputError([&] { StoreSink sink(db_); }, db_, "read-only");
  EXPECT_EQ(fileBytes(db_), before);
}

TEST_F(StoreTest, WriterLockedOutPastTheBusyTimeoutGetsAClearError) {
  const int64_t id = storeRun(db_, 10);
  SQLite::Database other = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
  other.exec("BEGIN EXCLUSIVE");
  other.exec("UPDATE runs SET name = 'held'");
  StoreOptions options;
  options.busy_timeout_ms = 300;
  const auto t0 = std::chrono::steady_clock::now();
  {
    StoreSink sink(db_, options);
    expectInputError([&] { sink.onRunStarted(makeInfo()); }, db_, "locked by another program");
  }
  const double waited_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(waited_ms, 250.0);  // it waited for the lock before giving up
  {
    RunStore store(db_, options);  // reading still works under a writer (WAL)
    EXPECT_EQ(store.listRuns().size(), 1u);
    expectInputError([&] { store.setNote(id, "n"); }, db_, "locked");
  }
  other.exec("ROLLBACK");
  RunStore store(db_);
  EXPECT_EQ(store.listRuns().size(), 1u);  // the refused experiment left no rows
  EXPECT_EQ(stepRows(db_), 10);
}

TEST_F(StoreTest, NonSqliteFileIsRefusedAndLeftAlone) {
  {
    std::ofstream out(db_, std::ios::binary);
    out << "step,loss\n1,0.5\n2,0.4\n";
  }
  const std::string before = fileBytes(db_);
  expectInputError([&] { RunStore store(db_); }, db_, "not an SQLite database");
  expectInputError([&] { StoreSink sink(db_); }, db_, "not an SQLite database");
  EXPECT_EQ(fileBytes(db_), before);
}

TEST_F(StoreTest, ForeignSqliteDatabaseIsRefusedAndLeftAlone) {
  {
    SQLite::Database raw =
        store::openStoreFile(db_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 0);
    raw.exec("CREATE TABLE contacts (name TEXT)");
  }
  const std::string before = fileBytes(db_);
  expectInputError([&] { RunStore store(db_); }, db_, "another program");
  EXPECT_EQ(fileBytes(db_), before);
}

TEST_F(StoreTest, CorruptFileGivesAClearError) {
  storeRun(db_, 3000);  // many pages
  {
    // Keep page 1 (header and schema) and overwrite the rest with garbage.
    std::fstream f(db_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto size = static_cast<size_t>(f.tellg());
    ASSERT_GT(size, 40000u);
    std::string garbage(size - 4096, '\0');
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 7919) >> 3);
    f.seekp(4096);
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  expectInputError(
      [&] {
        RunStore store(db_);
        store.listRuns();
        store.series(1);
      },
      db_, "corrupt");
}

TEST_F(StoreTest, NewerSchemaIsRefusedAndNeverModified) {
  storeRun(db_, 5);
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READWRITE, 0);
    raw.exec("PRAGMA user_version = " + std::to_string(RunStore::schemaVersion() + 5));
    raw.exec("PRAGMA journal_mode = DELETE");  // WAL on again would show as a change
  }
  const std::string before = fileBytes(db_);
  expectInputError([&] { RunStore store(db_); }, db_, "newer AccumLab");
  expectInputError([&] { StoreSink sink(db_); }, db_, "newer AccumLab");
  EXPECT_EQ(fileBytes(db_), before);
  EXPECT_FALSE(std::filesystem::exists(db_ + "-wal"));
}

TEST_F(StoreTest, FullDiskStopsStoringAndKeepsEarlierRows) {
  { RunStore store(db_); }
  int64_t pages = 0;
  {
    SQLite::Database raw = store::openStoreFile(db_, SQLite::OPEN_READONLY, 0);
    pages = raw.execAndGet("PRAGMA page_count").getInt64();
  }
  StoreOptions options;
  options.max_page_count = pages + 6;  // room for the run rows and a few hundred steps
  StoreSink sink(db_, options);
  sink.onRunStarted(makeInfo({ArmKind::kAccum}));
  for (int64_t s = 1; s <= 100; ++s) sink.onStep(makeStep(ArmKind::kAccum, s));
  sink.finish();  // fits
  for (int64_t s = 101; s <= 50000; ++s) sink.onStep(makeStep(ArmKind::kAccum, s));
  expectInputError([&] { sink.finish(); }, db_, "disk is full");
  sink.onStep(makeStep(ArmKind::kAccum, 50001));  // later hand-overs are dropped quietly

  RunStore store(db_);
  EXPECT_EQ(store.integrityCheck(), "ok");
  EXPECT_EQ(store.series(sink.runs()[0].run_id).steps.size(), 100u);
}

}  // namespace
}  // namespace accumlab
