#include "accumlab/local_workers.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "accumlab/input_error.h"

namespace accumlab {

namespace {

std::string tempFolder() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

// Seconds the workers have to exit once rank 0's run has ended.
constexpr int kExitGraceS = 6;

/// Waits for `pid` to exit until `deadline`, then ends it (SIGKILL); its wait status goes to
/// `status`. False when it had to be ended.
bool reap(pid_t pid, std::chrono::steady_clock::time_point deadline, int& status) {
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done != 0) return true;  // exited, or not ours to wait for any more
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return false;
}

/// Removes `folder` and the files in it (the config and what the FileStore left).
void removeFolder(const std::string& folder) {
  if (DIR* d = ::opendir(folder.c_str())) {
    while (const dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") ::unlink((folder + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(folder.c_str());
}

std::string exitText(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

LocalWorkers::LocalWorkers(std::string cli, const ExperimentConfig& config, double timeout_s)
    : cli_(std::move(cli)), workers_(static_cast<int>(config.workers)), timeout_s_(timeout_s) {
  if (cli_.empty()) {
    throw InputError("cannot start the workers: accumlab-cli was not found beside this program or on the PATH");
  }
  if (::access(cli_.c_str(), X_OK) != 0) {
    throw InputError("cannot start the workers: the training engine '" + cli_ +
                     "' is missing or cannot be run; reinstall AccumLab or rebuild it");
  }
  // mkdtemp makes the folder with mode 0700: only this user can read the config or write the
  // rendezvous store, which is what lets the ranks trust each other without a token.
  std::string folder = tempFolder() + "/accumlab-workers-XXXXXX";
  if (!::mkdtemp(folder.data())) {
    throw InputError("cannot make the workers' folder in " + tempFolder() + " (" +
                     std::strerror(errno) + ")");
  }
  folder_ = folder;
  config_file_ = folder_ + "/config.json";
  const std::string json = configToJson(config);
  const int fd = ::open(config_file_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const bool written =
      fd >= 0 && ::write(fd, json.data(), json.size()) == static_cast<ssize_t>(json.size());
  const std::string why = std::strerror(errno);
  if (fd >= 0) ::close(fd);
  if (!written) {
    removeFolder(folder_);  // no destructor runs for a constructor that throws
    throw InputError("cannot write the workers' config in " + folder_ + " (" + why + ")");
  }
}

LocalWorkers::~LocalWorkers() {
  for (pid_t pid : pids_) {
    if (pid > 0) ::kill(pid, SIGTERM);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (pid_t& pid : pids_) {
    int status = 0;
    if (pid > 0) reap(pid, deadline, status);
    pid = 0;
  }
  if (!folder_.empty()) removeFolder(folder_);
}

void LocalWorkers::start() {
  const std::string world = std::to_string(workers_);
  std::ostringstream timeout_text;
  timeout_text << timeout_s_;  // "30", not "30.000000"
  const std::string timeout = timeout_text.str();
  for (int rank = 1; rank < workers_; ++rank) {
    const std::string r = std::to_string(rank);
    std::vector<std::string> args = {
        cli_,           "run",    "--config",         config_file_, "--rank",           r,
        "--world-size", world,    "--rendezvous-dir", folder_,      "--worker-timeout", timeout,
        "--no-store",   "--quiet"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw InputError("cannot start worker rank " + r + " (" + std::strerror(errno) + ")");
    if (pid == 0) {
      // The child: its summary is rank 0's to print; its errors are the user's to read.
      const int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0) ::dup2(null, STDOUT_FILENO);
      ::execv(cli_.c_str(), argv.data());
      std::fprintf(stderr, "accumlab-cli: cannot start worker rank %d (%s)\n", rank, std::strerror(errno));
      ::_exit(127);
    }
    pids_.push_back(pid);
  }
}

std::vector<std::string> LocalWorkers::wait() {
  std::vector<std::string> problems;
  // Rank 0's run has ended: the others end with it (their last window was the same), or, after
  // a lost worker, once they have named it (a roll call of 3 s). One still there after that
  // hangs.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kExitGraceS);
  for (size_t i = 0; i < pids_.size(); ++i) {
    pid_t& pid = pids_[i];
    if (pid <= 0) continue;
    const std::string who = "worker rank " + std::to_string(i + 1) + " (pid " + std::to_string(pid) + ")";
    int status = 0;
    if (!reap(pid, deadline, status)) {
      problems.push_back(who + " did not exit in time and was ended");
    } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      problems.push_back(who + " " + exitText(status));
    }
    pid = 0;
  }
  return problems;
}

}  // namespace accumlab
