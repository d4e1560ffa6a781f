// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace accumlab {

/// Where the checkpoint of stored experiment `experiment_id` lives: in a folder beside the
/// store file `db_path` (docs/store.md), `S.sqlite.checkpoints/`. Nothing is created here:
/// the folder is made when a checkpoint is written and removed with its last checkpoint
/// (RunCheckpoint), so a store that never checkpoints has none beside it.
inline std::string checkpointPath(const std::string& db_path, int64_t experiment_id) {
  return db_path + ".checkpoints/experiment-" + std::to_string(experiment_id) + ".pt";
}

}  // namespace accumlab
