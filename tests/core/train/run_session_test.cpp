// SPDX-License-Identifier: GPL-3.0-or-later
// RunSession: one assembly of a run for the CLI, lessons and the app.
#include "accumlab/run_session.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>

#include "../data/temp_files.h"
#include "accumlab/checkpoint_path.h"
#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

using testing::RecordingSink;

ExperimentConfig smallSessionConfig() {
  ExperimentConfig c;
  c.data = "blobs";
  c.synthetic_samples = 2000;
  c.model = "mlp:16";
  c.micro_batch = 8;
  c.accum = 4;
  c.samples = 4000;
  c.eval_every = 1000;
  c.device = "cpu";
  return c;
}

/// Records, at the run's start, whether the store had already created the runs: the store
/// comes first in the session's fan-out.
struct StoreFirstSink : MetricsSink {
  explicit StoreFirstSink(RunSession& s) : session(s) {}
  void onRunStarted(const RunInfo&) override { runs_at_start = session.storedRuns().size(); }
  void onStep(const StepRecord& r) override { ++steps[r.arm]; }
  RunSession& session;
  size_t runs_at_start = 0;
  std::map<ArmKind, size_t> steps;
};

TEST(RunSession, StoresEveryArmAndShowsTheStoreBeforeTheFrontEnd) {
  testing::TempDir dir;
  RunSessionOptions options;
  options.store_path = dir / "runs.sqlite";
  RunSession session(smallSessionConfig(), options);
  ASSERT_NE(session.store(), nullptr);
  StoreFirstSink sink(session);
  const RunSummary summary = session.run({&sink});
  EXPECT_TRUE(session.finish().empty());
  EXPECT_EQ(sink.runs_at_start, summary.arms.size());
  EXPECT_EQ(sink.steps.size(), summary.arms.size());
  const std::vector<StoredRun> runs = session.storedRuns();
  ASSERT_EQ(runs.size(), summary.arms.size());
  RunStore store(options.store_path);
  for (const StoredRun& r : runs) {
    EXPECT_EQ(store.run(r.run_id).row.status, ArmStatus::kFinished);
    EXPECT_EQ(store.series(r.run_id).steps.size(), sink.steps[r.arm])
        << "every step the front end saw is stored, once";
  }
}

TEST(RunSession, WithoutAStoreKeepsNothing) {
  RunSession session(smallSessionConfig(), {});
  EXPECT_EQ(session.store(), nullptr);
  RecordingSink sink;
  session.run({&sink});
  EXPECT_TRUE(session.finish().empty());
  EXPECT_TRUE(session.storedRuns().empty());
  EXPECT_FALSE(sink.steps.empty());
}

TEST(RunSession, StopsEveryArmAtItsTarget) {
  ExperimentConfig c = smallSessionConfig();
  c.samples = 40000;
  RunSessionOptions options;
  SweepTarget target;
  target.kind = SweepTarget::Kind::kLoss;
  target.value = 1e9;  // reached by the first step of every arm
  options.target = target;
  RunSession session(c, options);
  const RunSummary summary = session.run({});
  for (const ArmSummary& arm : summary.arms) {
    EXPECT_EQ(arm.status, ArmStatus::kStopped);
    EXPECT_LT(arm.samples_seen, c.samples);
  }
}

TEST(RunSession, RefusesADatasetThatIsTheStoreItself) {
  testing::TempDir dir;
  RunSessionOptions options;
  options.store_path = dir / "runs.sqlite";
  { RunStore create(options.store_path); }
  ExperimentConfig c = smallSessionConfig();
  c.data = "csv:" + options.store_path;
  EXPECT_THROW(RunSession(c, options), InputError);
}

TEST(RunSession, RefusesToResumeWithoutACheckpoint) {
  testing::TempDir dir;
  RunSessionOptions options;
  options.store_path = dir / "runs.sqlite";
  options.resume_experiment = 7;
  try {
    RunSession session(smallSessionConfig(), options);
    FAIL() << "resumed without a checkpoint";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("experiment-7.pt"), std::string::npos) << e.what();
  }
}

TEST(RunSession, CheckpointsBesideTheStoreAndResumesTheStoredExperiment) {
  testing::TempDir dir;
  RunSessionOptions options;
  options.store_path = dir / "runs.sqlite";
  options.checkpoint_every = 1000;
  const ExperimentConfig c = smallSessionConfig();
  // A run that ends removes its checkpoint; keep a copy of the first, as a crash would.
  struct KeepFirstCheckpoint : MetricsSink {
    explicit KeepFirstCheckpoint(RunSession& s, std::string to) : session(s), copy(std::move(to)) {}
    void onStep(const StepRecord&) override {
      if (kept || session.store()->experimentId() == 0) return;
      const std::string from = checkpointPath(db, session.store()->experimentId());
      if (::access(from.c_str(), F_OK) != 0) return;
      std::filesystem::copy_file(from, copy);
      kept = true;
    }
    RunSession& session;
    std::string copy, db;
    bool kept = false;
  };
  int64_t experiment = 0;
  {
    RunSession first(c, options);
    KeepFirstCheckpoint keep(first, dir / "kept.pt");
    keep.db = options.store_path;
    first.run({&keep});
    first.finish();
    ASSERT_TRUE(keep.kept) << "no checkpoint was written beside the store";
    experiment = first.store()->experimentId();
  }
  const std::string checkpoint = checkpointPath(options.store_path, experiment);
  ASSERT_NE(::access(checkpoint.c_str(), F_OK), 0) << "the ended run left its checkpoint";
  EXPECT_FALSE(std::filesystem::exists(options.store_path + ".checkpoints"))
      << "the ended run left its checkpoints folder behind, empty";
  std::filesystem::create_directory(options.store_path + ".checkpoints");
  std::filesystem::copy_file(dir / "kept.pt", checkpoint);
  options.resume_experiment = experiment;
  RunSession second(c, options);
  RecordingSink sink;
  const RunSummary summary = second.run({&sink});
  second.finish();
  EXPECT_EQ(second.store()->experimentId(), experiment);
  ASSERT_FALSE(sink.steps.empty());
  EXPECT_GE(sink.steps.front().samples_seen, 1000) << "it went on from the checkpoint";
  for (const ArmSummary& arm : summary.arms) EXPECT_EQ(arm.samples_seen, c.samples);
  EXPECT_FALSE(std::filesystem::exists(options.store_path + ".checkpoints"))
      << "the resumed run left its checkpoints folder behind";
}

TEST(RunSession, LeavesNoCheckpointsFolderWhenItWritesNoCheckpoint) {
  testing::TempDir dir;
  RunSessionOptions options;
  options.store_path = dir / "runs.sqlite";
  options.checkpoint_every = 1000000;  // due after the run's end: never written
  RunSession session(smallSessionConfig(), options);
  session.run({});
  session.finish();
  EXPECT_EQ(checkpointPath(options.store_path, 3),
            options.store_path + ".checkpoints/experiment-3.pt");
  EXPECT_FALSE(std::filesystem::exists(options.store_path + ".checkpoints"));
}

}  // namespace
}  // namespace accumlab
