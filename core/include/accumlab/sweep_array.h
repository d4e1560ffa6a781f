// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/run_store.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_spec.h"

namespace accumlab {

/// A sweep that a scheduler trains (docs/clusters.md, "A sweep as an array job"): a results
/// folder with `sweep.json` (this), one job per point (`point-I.job.json`, accumlab/sweep_job.h)
/// whose run goes to its own store `point-I.sqlite` beside it, and the outcome each task
/// writes (`point-I.outcome.json`). Task I runs `accumlab-cli sweep-point FOLDER --point I`.
struct SweepArray {
  std::string id;  ///< the folder's identity (32 hex digits): a collected sweep is found by it
  SweepSpec spec;  ///< the base config, target and points at once
  std::vector<SweepPoint> points;  ///< in grid order, indices from 0
};

/// Writes `array` into `folder` (made if missing, refused if it holds a sweep already): its
/// sweep.json and each point's job, with each point's store as an absolute path inside the
/// folder. Throws InputError naming the folder or file.
void writeSweepArray(const std::string& folder, const SweepArray& array);
/// Reads `folder`'s sweep.json; throws InputError naming the file when it is missing or not
/// a sweep array of this version.
SweepArray readSweepArray(const std::string& folder);
/// A new folder identity: 32 random hex digits.
std::string newSweepArrayId();

/// The files of point `index` in `folder`: "job.json", "outcome.json" or "sqlite".
std::string sweepArrayFile(const std::string& folder, int64_t index, const std::string& kind);

/// An sbatch script for `folder`: one array task per point (`--array=0-(points-1)`), one CPU
/// each, the task's output in point-%a.log, then the caller's own `#SBATCH` options, each task
/// running `PROGRAM sweep-point FOLDER --point $SLURM_ARRAY_TASK_ID`.
std::string slurmArrayScript(const std::string& folder, size_t points, const std::string& program,
                             const std::vector<std::string>& sbatch_options);

/// What `sweep collect` found in a results folder.
struct CollectedSweep {
  int64_t sweep_id = 0;  ///< the sweep in the store, made the first time
  size_t points = 0;
  std::vector<int64_t> added;        ///< points whose run came in now
  std::vector<int64_t> kept;         ///< points collected before, left as they were
  std::vector<std::string> missing;  ///< "point 3 (B=64 (8×8) lr=0.02): no outcome yet"
  std::vector<std::string> failed;   ///< "point 1 (…): out of memory"
};

/// Brings a results folder home into `store`: merges each point's store (StoreMerger, so a
/// run merged before is not copied again), stores the sweep the first time (named after its
/// base config, its spec's origin the folder's id) and measures each point from its merged
/// run, as a local sweep does. Points without an outcome stay pending and are named, failed
/// ones carry their error. Throws InputError for a folder that is no sweep array, or a point
/// store that cannot be merged.
CollectedSweep collectSweepArray(RunStore& store, const std::string& folder);

}  // namespace accumlab
