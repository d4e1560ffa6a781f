// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

namespace accumlab {

/// Where the checkpoint of stored experiment `experiment_id` lives: a folder beside the store
/// file `db_path` (docs/store.md). The folder is created when missing (a failure shows when
/// the checkpoint is written).
inline std::string checkpointPath(const std::string& db_path, int64_t experiment_id) {
  const std::string dir = db_path + ".checkpoints";
  ::mkdir(dir.c_str(), 0755);
  return dir + "/experiment-" + std::to_string(experiment_id) + ".pt";
}

}  // namespace accumlab
