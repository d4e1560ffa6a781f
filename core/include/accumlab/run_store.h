// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/batching_sink.h"
#include "accumlab/experiment_config.h"
#include "accumlab/records.h"

namespace accumlab {

namespace store {
class Connection;
}

/// How a store is opened.
struct StoreOptions {
  /// Create the file (and its folder) when missing; otherwise a missing file is an InputError.
  bool create_if_missing = true;
  /// How long a write waits for another writer's lock before failing with an InputError.
  int busy_timeout_ms = 5000;
  /// Caps the file at this many pages (0: no cap); lets tests simulate a full disk.
  int64_t max_page_count = 0;
};

/// One stored run (one arm of an experiment): a row of the runs list.
struct RunRow {
  int64_t id = 0;
  int64_t experiment_id = 0;
  std::string experiment_name;  ///< the config's name, may be empty
  std::string name;             ///< the run's own name (rename), may be empty
  std::string started_at;       ///< ISO 8601 UTC, e.g. "2024-05-01T12:00:00Z"
  std::string ended_at;         ///< empty while running or when interrupted
  std::string dataset;          ///< data SPEC
  std::string model;            ///< model SPEC
  ArmKind arm = ArmKind::kNoAccum;
  int64_t micro_batch = 0;       ///< m of this arm at the start
  int64_t accum = 0;             ///< K of this arm at the start
  int64_t last_micro_batch = 0;  ///< m at the last stored step (m at the start before any step)
  int64_t last_accum = 0;        ///< K at the last stored step (K at the start before any step)
  ArmStatus status = ArmStatus::kRunning;
  int64_t steps = 0;           ///< steps stored so far
  int64_t samples_seen = 0;    ///< samples seen at the last stored step
  double final_loss = kNaN;    ///< the summary's final train loss, or the last stored step's loss
  double val_loss = kNaN;      ///< the summary's, or the last stored eval's
  double val_accuracy = kNaN;  ///< the summary's, or the last stored eval's
  std::vector<std::string> tags;  ///< sorted
};

/// "m×K" of a run as it started and, when m or K changed during it, as it ended: "8×8→16×8".
std::string batchSizesText(int64_t m, int64_t k, int64_t last_m, int64_t last_k);
/// Seconds from the start of the run (all its arms start together) to this arm's end, from
/// the store's timestamps (whole seconds); NaN while the arm runs or when it was interrupted.
double runWallSeconds(const RunRow& r);
/// The same for a runs-list row.
inline std::string batchSizesText(const RunRow& r) {
  return batchSizesText(r.micro_batch, r.accum, r.last_micro_batch, r.last_accum);
}

/// Which runs listRuns() returns; empty fields do not filter.
struct RunFilter {
  std::string tag;                  ///< runs carrying this tag
  std::string dataset;              ///< runs whose data SPEC equals this
  std::optional<ArmStatus> status;  ///< runs with this status
  int64_t experiment_id = 0;        ///< runs of this experiment (0: any)
  int64_t limit = 0;                ///< at most this many, newest first (0: all)
};

/// Everything stored about one run except its metric series.
struct RunDetail {
  RunRow row;
  ExperimentConfig config;   ///< the experiment's resolved config
  std::string config_json;   ///< the same, as stored
  ArmSummary summary;        ///< status kRunning/kInterrupted and NaNs when the arm never ended
  std::string summary_json;  ///< the arm's summary as a JSON object ("{}" when it never ended)
  std::string device;        ///< where it ran, e.g. "cpu (2 threads)"
  std::string dataset_description;
  std::string model_description;
  std::string note;                 ///< empty when none
  std::vector<EventRecord> events;  ///< this arm's events and the experiment-wide ones, in order
};

/// One run's metric series, ordered by step.
struct RunSeries {
  std::vector<StepRecord> steps;
  std::vector<EvalRecord> evals;
  std::vector<ProbeRecord> probes;  ///< fixed-weight variance probes of this arm's weights
};

/// One config key whose value differs between runs: values[i] belongs to the i-th run.
struct ConfigDifference {
  std::string key;                  ///< dotted path, e.g. "optimizer.lr"
  std::vector<std::string> values;  ///< JSON text of each run's value ("—" when absent)
};
/// The keys whose values differ among the given config JSON objects, in key order.
std::vector<ConfigDifference> diffConfigs(const std::vector<std::string>& config_jsons);
/// A config JSON flattened to dotted keys ("optimizer.lr"), each value as JSON text, sorted
/// by key (what diffConfigs() compares and the HTML report lists).
std::vector<std::pair<std::string, std::string>> flattenConfig(const std::string& config_json);

/// The run database (docs/store.md): one SQLite file in WAL mode.
///
/// Threads: a RunStore owns one SQLite connection and must be used by one thread at a time
/// (the thread that uses it owns it; nothing inside is locked). Other threads and processes
/// open their own RunStore on the same file; WAL lets them read while a run writes.
/// Every failure the user can act on (read-only file, lock held by another writer past the
/// busy timeout, corrupt or non-SQLite file, disk full, a schema newer than this build)
/// throws InputError with one sentence naming the file.
class RunStore {
 public:
  /// `$XDG_DATA_HOME/AccumLab/runs.sqlite`, else `~/.local/share/AccumLab/runs.sqlite`.
  static std::string defaultPath();

  /// Opens (or creates) the file, migrates an older schema in one transaction, and marks
  /// runs left `running` by a process that is gone as `interrupted`. A file from a newer
  /// schema is refused and left untouched.
  explicit RunStore(const std::string& path, const StoreOptions& options = {});
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  /// The file this store reads and writes.
  const std::string& path() const;
  /// The schema version this build writes (`PRAGMA user_version`).
  static int schemaVersion();
  /// Whether writing `path` would overwrite the store file `db_path` or one of its journals
  /// (-wal, -shm, -journal). Compares device and inode with stat(): opening either file here
  /// would drop this process's locks on the store.
  static bool wouldOverwrite(const std::string& db_path, const std::string& path);

  /// Throws InputError when `config` would read the store file `db_path` (or a journal of it)
  /// as its dataset (`csv:FILE`) or model (`torchscript:FILE`): reading it behind SQLite's
  /// back would drop this process's locks on the store (docs/store.md).
  static void refuseReadingStore(const ExperimentConfig& config, const std::string& db_path);

  /// Marks `running` runs whose writing process is gone as `interrupted`; returns how many.
  int markInterruptedRuns();
  /// SQLite's `PRAGMA integrity_check`: "ok", or the first problem found.
  std::string integrityCheck();

  /// Runs matching the filter, newest first.
  std::vector<RunRow> listRuns(const RunFilter& filter = {});
  /// Whether a run with this id exists.
  bool hasRun(int64_t run_id);
  /// One run's detail; throws InputError when there is no such run.
  RunDetail run(int64_t run_id);
  /// One run's steps and evals; throws InputError when there is no such run.
  RunSeries series(int64_t run_id);
  /// The final weights the run kept (docs/store.md#trained-models); nullopt when it kept none
  /// (it failed, diverged, is still running, or ran with keep_weights off or before
  /// AccumLab kept them). Throws InputError when there is no such run.
  std::optional<ArmWeights> weights(int64_t run_id);
  /// The size in bytes of the weights the run kept; 0 when none.
  int64_t weightsBytes(int64_t run_id);
  /// The number of stored step rows in the whole file.
  int64_t stepRowCount();

  /// Adds tags to a run (existing ones are kept); throws InputError for a missing run.
  void addTags(int64_t run_id, const std::vector<std::string>& tags);
  /// Removes tags from a run; tags it does not carry are ignored.
  void removeTags(int64_t run_id, const std::vector<std::string>& tags);
  /// Every tag in use, sorted.
  std::vector<std::string> allTags();
  /// Sets (or, with an empty text, clears) the run's note.
  void setNote(int64_t run_id, const std::string& text);
  /// Gives the run a name (empty: none).
  void rename(int64_t run_id, const std::string& name);
  /// Deletes the runs with all their rows, and experiments left without runs; throws
  /// InputError (deleting nothing) when any id does not exist.
  void deleteRuns(const std::vector<int64_t>& run_ids);

  /// This store's connection, for the stores that keep their own tables on it (SweepStore,
  /// LessonStore): they follow its thread rule.
  store::Connection& connection();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One stored arm of the experiment a StoreSink writes.
struct StoredRun {
  ArmKind arm = ArmKind::kNoAccum;
  int64_t run_id = 0;
};

/// A MetricsSink that stores a run: an experiment and one run per arm.
///
/// Threads: the training thread makes every MetricsSink call; they only append to a
/// mutex-guarded RecordBatch (never touching disk), except onRunStarted, which waits once, before
/// the first step, for the experiment's rows to be created. A writer thread owned by this
/// object, with its own connection, drains the queue and commits it in one transaction at
/// most every 250 ms and at each arm's end and the run's end. The id accessors and finish()
/// may be called from any thread.
class StoreSink : public BatchingSink {
 public:
  /// Opens (or creates) the store on the writer thread; throws InputError as RunStore does.
  explicit StoreSink(const std::string& path, const StoreOptions& options = {});
  /// Commits what is queued, marks arms that never ended `failed`, and joins the writer.
  ~StoreSink() override;
  StoreSink(const StoreSink&) = delete;
  StoreSink& operator=(const StoreSink&) = delete;

  /// Creates the experiment and its runs; throws InputError when the file cannot be written.
  void onRunStarted(const RunInfo& info) override;
  /// Stores the final summaries and waits for the last commit.
  void onRunFinished(const RunSummary& summary) override;
  /// Keeps an arm's final weights with its run (table run_weights), committed with its end.
  void onArmWeights(const ArmWeights& weights) override;
  /// Waits until everything so far is committed (before a checkpoint); throws as finish().
  void flush() override { finish(); }
  /// The next run continues stored experiment `experiment_id` (a run resumed from a
  /// checkpoint): onRunStarted takes over its runs, drops their rows after
  /// RunInfo::resumed_after_ms and marks them running again. Call before the run starts.
  void resumeExperiment(int64_t experiment_id);

  /// Blocks until everything handed over so far is committed; throws InputError when the
  /// writer has failed (e.g. the disk filled up), naming the file. Rows committed before
  /// the failure are kept.
  void finish();

  /// The file written.
  const std::string& path() const;
  /// The experiment's id, 0 before onRunStarted.
  int64_t experimentId() const;
  /// The runs created by onRunStarted, in arm order.
  std::vector<StoredRun> runs() const;

 protected:
  void append(const std::function<void(RecordBatch&)>& add, Urgency urgency) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace accumlab
