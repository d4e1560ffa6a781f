// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/local_workers.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <system_error>

#include "accumlab/child_process.h"
#include "accumlab/input_error.h"
#include "accumlab/temp_folder.h"

namespace accumlab {

namespace {

// Seconds the workers have to exit once rank 0's run has ended: a rank that lost a worker
// names it after a roll call of 3 s (WorkerGroup), which may start a moment after rank 0's on
// a loaded machine.
constexpr double kExitGraceS = 10;
// Seconds the workers have to exit after SIGTERM when they are ended early.
constexpr double kTermGraceS = 3;

double workerClockS() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Waits for `child` until `deadline` (workerClockS() seconds), then ends it (SIGKILL, kTimedOut).
ChildResult reap(ChildProcess& child, double deadline) {
  if (std::optional<ChildResult> ended = child.poll()) return *ended;
  // A grace of 0 would wait without a limit: a deadline already past still gets one look.
  return child.wait(std::max(deadline - workerClockS(), 1e-3));
}

}  // namespace

LocalWorkers::LocalWorkers(std::string cli, const ExperimentConfig& config, double timeout_s)
    : cli_(std::move(cli)), workers_(static_cast<int>(config.workers)), timeout_s_(timeout_s) {
  if (cli_.empty()) {
    throw InputError(
        "cannot start the workers: accumlab-cli was not found beside this program or on the PATH");
  }
  if (::access(cli_.c_str(), X_OK) != 0) {
    throw InputError("cannot start the workers: the training engine '" + cli_ +
                     "' is missing or cannot be run; reinstall AccumLab or rebuild it");
  }
  // A private folder (mode 0700): only this user can read the config or write the rendezvous
  // store, which is what lets the ranks trust each other without a token.
  try {
    folder_ = std::make_unique<TempFolder>("accumlab-workers");
  } catch (const std::system_error& e) {
    throw InputError("cannot make the workers' folder in " + TempFolder::parent() + " (" +
                     e.code().message() + ")");
  }
  config_file_ = folder_->path() + "/config.json";
  const std::string json = configToJson(config);
  const int fd = ::open(config_file_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const bool written =
      fd >= 0 && ::write(fd, json.data(), json.size()) == static_cast<ssize_t>(json.size());
  const std::string why = std::strerror(errno);
  if (fd >= 0) ::close(fd);
  if (!written) {
    // folder_ goes with the members a throwing constructor has made.
    throw InputError("cannot write the workers' config in " + folder_->path() + " (" + why + ")");
  }
}

LocalWorkers::~LocalWorkers() {
  for (auto& child : children_) child->sendSignal(SIGTERM);
  const double deadline = workerClockS() + kTermGraceS;
  for (auto& child : children_) {
    if (child->pid() > 0) reap(*child, deadline);
  }
}

const std::string& LocalWorkers::rendezvousDir() const { return folder_->path(); }

void LocalWorkers::start() {
  const std::string world = std::to_string(workers_);
  std::ostringstream timeout_text;
  timeout_text << timeout_s_;  // "30", not "30.000000"
  const std::string timeout = timeout_text.str();
  for (int rank = 1; rank < workers_; ++rank) {
    const std::string r = std::to_string(rank);
    ChildSpec spec;
    spec.argv = {
        cli_,           "run",    "--config",         config_file_,    "--rank",           r,
        "--world-size", world,    "--rendezvous-dir", folder_->path(), "--worker-timeout", timeout,
        "--no-store",   "--quiet"};
    // Its summary is rank 0's to print; its errors are the user's to read.
    spec.discard_stdout = true;
    // Not tied to the training thread that starts it (Trainer::run calls start()): a rank left
    // alone ends at its --worker-timeout.
    spec.dies_with_parent = false;
    try {
      children_.push_back(std::make_unique<ChildProcess>(spec));
    } catch (const std::system_error& e) {
      throw InputError("cannot start worker rank " + r + " (" + e.code().message() + ")");
    }
  }
}

std::vector<std::string> LocalWorkers::wait() {
  std::vector<std::string> problems;
  // Rank 0's run has ended: the others end with it (their last window was the same), or, after
  // a lost worker, once they have named it (a roll call of 3 s). One still there after that
  // hangs.
  const double deadline = workerClockS() + kExitGraceS;
  for (size_t i = 0; i < children_.size(); ++i) {
    ChildProcess& child = *children_[i];
    if (child.pid() <= 0) continue;
    const std::string who =
        "worker rank " + std::to_string(i + 1) + " (pid " + std::to_string(child.pid()) + ")";
    const ChildResult r = reap(child, deadline);
    if (r.end == ChildResult::End::kTimedOut) {
      problems.push_back(who + " did not exit in time and was ended");
    } else if (!r.exitedWith(0) && !r.exitedWith(-1)) {  // -1: reaped elsewhere, unknown
      problems.push_back(who + " " + r.describe());
    }
  }
  return problems;
}

}  // namespace accumlab
