// SPDX-License-Identifier: GPL-3.0-or-later
// The TensorBoard export: TFRecord framing, the log folders it writes and how it fails. The
// messages themselves are read back, value by value, by an independent reader in
// tests/cli/tensorboard_export_test.py.
#include <filesystem>
#include <optional>

#include "accumlab/input_error.h"
#include "accumlab/run_exporter.h"
#include "store/tensorboard_writer.h"
#include "store_fixture.h"

namespace accumlab {
namespace {

namespace fs = std::filesystem;
using store::appendTfRecord;
using store::maskedCrc32c;
using testing::fileBytes;
using testing::makeInfo;
using testing::makeStep;
using testing::StoreTest;

constexpr int64_t kExportSteps = 40;

uint64_t littleEndian(const std::string& bytes, size_t at, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

/// The data of each record of an event file, every length and CRC checked.
std::vector<std::string> records(const std::string& bytes) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at + 12 <= bytes.size()) {
    const uint64_t length = littleEndian(bytes, at, 8);
    EXPECT_EQ(littleEndian(bytes, at + 8, 4), maskedCrc32c(bytes.substr(at, 8)));
    if (at + 16 + length > bytes.size()) break;
    out.push_back(bytes.substr(at + 12, length));
    EXPECT_EQ(littleEndian(bytes, at + 12 + length, 4), maskedCrc32c(out.back()));
    at += 16 + length;
  }
  EXPECT_EQ(at, bytes.size()) << "a record is cut off";
  return out;
}

/// A finished two-arm run whose K changed for all arms after step 20; returns the run ids.
std::vector<int64_t> storeWithAChange(const std::string& db) {
  StoreSink sink(db);
  const RunInfo info = makeInfo();
  sink.onRunStarted(info);
  RunSummary summary;
  summary.info = info;
  for (ArmKind arm : info.config.arms) {
    for (int64_t s = 1; s <= kExportSteps; ++s) sink.onStep(makeStep(arm, s));
    sink.onEval({arm, kExportSteps, kExportSteps * 8, 11.0, 0.5, 0.75, ""});
    ArmSummary a;
    a.arm = arm;
    a.status = ArmStatus::kFinished;
    a.steps = kExportSteps;
    summary.arms.push_back(a);
  }
  sink.onEvent({20 * 8, 5.0, EventKind::kAccum, std::nullopt, "K 2 → 4"});
  sink.onRunFinished(summary);
  sink.finish();
  std::vector<int64_t> ids;
  for (const StoredRun& r : sink.runs()) ids.push_back(r.run_id);
  return ids;
}

/// The export's error, if it failed; skips the test in a build without the export.
std::optional<std::string> exportError(RunStore& store, const std::vector<int64_t>& ids,
                                       const std::string& folder) {
  try {
    RunExporter(store).write(ids, ExportFormat::kTensorBoard, folder);
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

bool builtWithout(const std::optional<std::string>& error) {
  return error && error->find("this build has no TensorBoard export") != std::string::npos;
}

/// The one event file in a run's log folder.
std::string eventFile(const fs::path& log) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(log)) files.push_back(entry.path());
  EXPECT_EQ(files.size(), 1u) << log;
  if (files.empty()) return {};
  EXPECT_EQ(files[0].filename().string().rfind("events.out.tfevents.", 0), 0u) << files[0];
  return files[0].string();
}

TEST(TensorBoardRecord, MasksTheCastagnoliCrcAsTfRecordDoes) {
  // CRC-32C("123456789") is 0xE3069283; rotated right by 15 and plus 0xa282ead8.
  EXPECT_EQ(maskedCrc32c("123456789"), 0xc78ab0e5u);
  EXPECT_EQ(maskedCrc32c(""), 0xa282ead8u);
}

TEST(TensorBoardRecord, FramesTheLengthTheDataAndBothCrcs) {
  std::string out;
  appendTfRecord(out, "abc");
  ASSERT_EQ(out.size(), 8u + 4 + 3 + 4);
  EXPECT_EQ(littleEndian(out, 0, 8), 3u);
  EXPECT_EQ(littleEndian(out, 8, 4), maskedCrc32c(out.substr(0, 8)));
  EXPECT_EQ(out.substr(12, 3), "abc");
  EXPECT_EQ(littleEndian(out, 15, 4), maskedCrc32c("abc"));
}

TEST_F(StoreTest, TensorBoardExportWritesOneLogFolderPerRun) {
  const auto ids = storeWithAChange(db_);
  RunStore store(db_);
  const std::string out = dir_ + "/tb";
  const auto error = exportError(store, ids, out);
  if (builtWithout(error)) GTEST_SKIP() << *error;
  ASSERT_FALSE(error) << *error;
  for (int64_t id : ids) {
    const RunRow row = store.run(id).row;
    const fs::path log = fs::path(out) / (std::to_string(id) + "-" + toString(row.arm));
    ASSERT_EQ(store::tensorBoardRunName(row), log.filename().string());
    const std::string path = eventFile(log);
    const std::string bytes = fileBytes(path);
    const auto data = records(bytes);
    // The version, the run and its config, one record per step on each x axis (the eval and
    // the event fall on steps), the summary.
    ASSERT_EQ(data.size(), 2u + kExportSteps + kExportSteps + 1);
    EXPECT_NE(data[0].find("brain.Event:2"), std::string::npos);
    EXPECT_NE(data[1].find("config"), std::string::npos);
    EXPECT_NE(data[20 + 1].find("K 2 → 4"), std::string::npos);  // at step 20
    EXPECT_NE(data[2 + kExportSteps + 19].find("by_samples/events"), std::string::npos);
    EXPECT_NE(data[2].find("train/loss"), std::string::npos);
    EXPECT_NE(data.back().find("summary"), std::string::npos);
    // An export again replaces the file with the same bytes.
    ASSERT_FALSE(exportError(store, {id}, out));
    EXPECT_EQ(fileBytes(eventFile(log)), bytes);
  }
}

TEST_F(StoreTest, TensorBoardExportToAFileOrAnUnwritableFolderFailsInOneSentence) {
  const auto ids = storeWithAChange(db_);
  RunStore store(db_);
  EXPECT_EQ(parseExportFormat("tensorboard"), ExportFormat::kTensorBoard);
  EXPECT_THROW(RunExporter(store).text(ids, ExportFormat::kTensorBoard), InputError);
  const std::string file = dir_ + "/a-file";
  std::ofstream(file) << "not a folder\n";
  const auto error = exportError(store, ids, file);
  ASSERT_TRUE(error);
  if (builtWithout(error)) GTEST_SKIP() << *error;
  EXPECT_NE(error->find(file + ": it is a file, not a folder"), std::string::npos) << *error;
  EXPECT_EQ(error->find('\n'), std::string::npos) << *error;

  const std::string blocked = dir_ + "/blocked";
  fs::create_directory(blocked);
  const std::string in_the_way = blocked + "/" + std::to_string(ids[1]) + "-accum";
  std::ofstream(in_the_way) << "in the way\n";
  const auto blocked_error = exportError(store, ids, blocked);
  ASSERT_TRUE(blocked_error);
  EXPECT_NE(blocked_error->find(in_the_way + " is a file, not a folder"), std::string::npos)
      << *blocked_error;
  // The first run's log was written whole; nothing is left half-written.
  for (const auto& entry : fs::recursive_directory_iterator(blocked)) {
    EXPECT_NE(entry.path().extension(), ".partial") << entry.path();
  }
  EXPECT_TRUE(exportError(store, ids, db_));  // the store itself
  EXPECT_EQ(store.integrityCheck(), "ok");
}

}  // namespace
}  // namespace accumlab
