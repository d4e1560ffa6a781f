// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace accumlab::cli {

/// Where a launcher (Slurm's `srun`, PyTorch's `torchrun`) put this process in a
/// data-parallel run (docs/clusters.md#ranks-from-the-launcher).
struct LauncherPlace {
  std::string launcher;  ///< "srun" or "torchrun", for messages
  int rank = 0;
  int world_size = 1;
  std::string host;  ///< the master's address as every rank reaches it
  int port = 0;
  /// torchrun's agent already hosts a store at host:port (TORCHELASTIC_USE_AGENT_STORE): every
  /// rank joins it, none binds the port.
  bool launcher_store = false;
  int restart = 0;  ///< torchrun's TORCHELASTIC_RESTART_COUNT: each attempt its own keys
};

/// Reads the launcher's environment through `env` (getenv's contract). `master_port` is
/// --master-port (0: not given). Returns nothing when no launcher started this process as
/// one of several ranks; throws InputError, one sentence, when its environment is half set.
std::optional<LauncherPlace> launcherPlace(const std::function<const char*(const char*)>& env,
                                           int master_port);

/// The first host of a Slurm node list: "node[03-05,07],gpu1" → "node03".
std::string firstSlurmHost(const std::string& nodelist);

}  // namespace accumlab::cli
