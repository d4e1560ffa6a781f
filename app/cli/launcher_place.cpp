// SPDX-License-Identifier: GPL-3.0-or-later
// Ranks from the launcher: the variables srun and torchrun give each process they start.
#include "launcher_place.h"

#include <cstdlib>
#include <vector>

#include "accumlab/input_error.h"

namespace accumlab::cli {

namespace {

/// The first port a Slurm job's rendezvous may take, and how many follow it: below Linux's
/// ephemeral range (32768 and up), so that no outgoing connection holds it.
constexpr int kSlurmFirstPort = 20000;
constexpr int kSlurmPorts = 12000;

/// A whole number in [low, high] from variable `name`, or an InputError naming it.
int launcherNumber(const char* launcher, const char* name, const char* text, int low, int high) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < low || value > high) {
    throw InputError(std::string(launcher) + " set " + name + "='" + text + "', which is not a " +
                     "whole number from " + std::to_string(low) + " to " + std::to_string(high));
  }
  return static_cast<int>(value);
}

/// "A and B are set but C is not; …": the variables of a launcher found half set.
[[noreturn]] void halfSet(const char* launcher, const std::vector<std::string>& set,
                          const std::vector<std::string>& missing, const std::string& advice) {
  auto join = [](const std::vector<std::string>& names) {
    std::string text;
    for (size_t i = 0; i < names.size(); ++i) {
      text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    }
    return text;
  };
  throw InputError(std::string("the ") + launcher + " environment is half set: " + join(set) +
                   (set.size() == 1 ? " is" : " are") + " set but " + join(missing) +
                   (missing.size() == 1 ? " is" : " are") + " not; " + advice +
                   ", or pass --rank, --world-size and --master yourself");
}

std::optional<LauncherPlace> torchrunPlace(const std::function<const char*(const char*)>& env) {
  const std::vector<std::string> names = {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"};
  std::vector<std::string> set, missing;
  for (const std::string& n : names) (env(n.c_str()) ? set : missing).push_back(n);
  if (set.empty()) return std::nullopt;
  if (!missing.empty()) halfSet("torchrun", set, missing, "set all four");
  LauncherPlace p;
  p.launcher = "torchrun";
  p.world_size = launcherNumber("torchrun", "WORLD_SIZE", env("WORLD_SIZE"), 1, 1 << 20);
  p.rank = launcherNumber("torchrun", "RANK", env("RANK"), 0, p.world_size - 1);
  p.host = env("MASTER_ADDR");
  p.port = launcherNumber("torchrun", "MASTER_PORT", env("MASTER_PORT"), 1, 65535);
  const char* agent = env("TORCHELASTIC_USE_AGENT_STORE");
  p.launcher_store = agent && std::string(agent) == "True";
  if (const char* restart = env("TORCHELASTIC_RESTART_COUNT")) {
    p.restart = launcherNumber("torchrun", "TORCHELASTIC_RESTART_COUNT", restart, 0, 1 << 20);
  }
  return p;
}

std::optional<LauncherPlace> slurmPlace(const std::function<const char*(const char*)>& env,
                                        int master_port) {
  // A job step started by srun; the batch script itself (no step id) is not a rank.
  if (!env("SLURM_PROCID") || !env("SLURM_STEP_ID")) return std::nullopt;
  std::vector<std::string> set = {"SLURM_PROCID"}, missing;
  (env("SLURM_NTASKS") ? set : missing).push_back("SLURM_NTASKS");
  const char* nodes = env("SLURM_STEP_NODELIST");
  const char* launch = env("SLURM_LAUNCH_NODE_IPADDR");
  if (!nodes && !launch) missing.push_back("SLURM_STEP_NODELIST (or SLURM_LAUNCH_NODE_IPADDR)");
  if (master_port == 0 && !env("SLURM_JOB_ID"))
    missing.push_back("SLURM_JOB_ID (or --master-port)");
  if (!missing.empty()) halfSet("Slurm", set, missing, "start the ranks with srun");
  LauncherPlace p;
  p.launcher = "srun";
  p.world_size = launcherNumber("Slurm", "SLURM_NTASKS", env("SLURM_NTASKS"), 1, 1 << 20);
  p.rank = launcherNumber("Slurm", "SLURM_PROCID", env("SLURM_PROCID"), 0, p.world_size - 1);
  // Every rank on one node: they meet on loopback, and nothing listens beyond it.
  const char* node_count = env("SLURM_STEP_NUM_NODES");
  if (node_count && std::string(node_count) == "1") {
    p.host = "127.0.0.1";
  } else {
    p.host = nodes ? firstSlurmHost(nodes) : "";
    if (p.host.empty()) p.host = launch ? launch : "";
    if (p.host.empty()) {
      throw InputError(std::string("Slurm set SLURM_STEP_NODELIST='") + nodes +
                       "', which names no host; pass --master HOST:PORT");
    }
  }
  if (master_port > 0) {
    p.port = master_port;
  } else {
    // One port per job and step, so that two jobs (or two steps) on one node do not collide.
    const int job = launcherNumber("Slurm", "SLURM_JOB_ID", env("SLURM_JOB_ID"), 0, 1 << 30);
    const char* step_text = env("SLURM_STEP_ID");
    char* end = nullptr;
    const long step = std::strtol(step_text, &end, 10);  // "batch" and "extern" count as 0
    p.port = kSlurmFirstPort +
             static_cast<int>((static_cast<long long>(job) * 16 + (*end ? 0 : step)) % kSlurmPorts);
  }
  return p;
}

}  // namespace

std::string firstSlurmHost(const std::string& nodelist) {
  const size_t end = nodelist.find_first_of(",[");
  if (end == std::string::npos || nodelist[end] == ',') return nodelist.substr(0, end);
  // "prefix[03-05,07]suffix": the prefix, the first number of the range, the rest.
  const size_t close = nodelist.find(']', end);
  if (close == std::string::npos) return "";
  const std::string range = nodelist.substr(end + 1, close - end - 1);
  const std::string first = range.substr(0, range.find_first_of(",-"));
  std::string rest = nodelist.substr(close + 1);
  rest = rest.substr(0, rest.find(','));
  return nodelist.substr(0, end) + first + rest;
}

std::optional<LauncherPlace> launcherPlace(const std::function<const char*(const char*)>& env,
                                           int master_port) {
  std::optional<LauncherPlace> place = torchrunPlace(env);
  if (!place) place = slurmPlace(env, master_port);
  if (place && place->world_size < 2) return std::nullopt;  // one rank: an ordinary run
  if (place && master_port > 0) place->port = master_port;
  return place;
}

}  // namespace accumlab::cli
