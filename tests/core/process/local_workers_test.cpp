// SPDX-License-Identifier: GPL-3.0-or-later
// The ranks of `--workers N` meet in a private temporary folder that goes with them
// (accumlab/local_workers.h).
#include "accumlab/local_workers.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

mode_t modeOf(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

TEST(LocalWorkers, MeetInAPrivateFolderUnderTmpdirThatGoesWithThem) {
  std::string parent =
      (std::filesystem::temp_directory_path() / "accumlab-lw-test-XXXXXX").string();
  ASSERT_NE(::mkdtemp(parent.data()), nullptr);
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", parent.c_str(), 1);
  ExperimentConfig c;
  c.workers = 2;
  std::string folder;
  {
    // /bin/true stands in for the engine: it takes any arguments and exits 0.
    LocalWorkers workers("/bin/true", c, 5);
    folder = workers.rendezvousDir();
    EXPECT_EQ(folder.rfind(parent + "/accumlab-workers-", 0), 0u) << folder;
    EXPECT_TRUE(S_ISDIR(modeOf(folder)));
    EXPECT_EQ(modeOf(folder) & 0777, 0700u);
    EXPECT_EQ(modeOf(folder + "/config.json") & 0777, 0600u);
    workers.start();
    EXPECT_TRUE(workers.wait().empty());
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
  if (old) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  std::filesystem::remove_all(parent);
}

TEST(LocalWorkers, NameEachWorkerThatDidNotExitWell) {
  ExperimentConfig c;
  c.workers = 3;
  // /bin/false stands in for an engine whose every rank fails.
  LocalWorkers workers("/bin/false", c, 5);
  workers.start();
  const std::vector<std::string> problems = workers.wait();
  ASSERT_EQ(problems.size(), 2u);
  for (size_t i = 0; i < problems.size(); ++i) {
    const std::string who = "worker rank " + std::to_string(i + 1) + " (pid ";
    EXPECT_EQ(problems[i].rfind(who, 0), 0u) << problems[i];
    EXPECT_NE(problems[i].find(") exited with status 1"), std::string::npos) << problems[i];
  }
  EXPECT_TRUE(workers.wait().empty());  // reaped once
}

TEST(LocalWorkers, AProgramThatCannotRunIsRefusedBeforeAnythingStarts) {
  ExperimentConfig c;
  c.workers = 2;
  EXPECT_THROW(LocalWorkers("/nonexistent/accumlab-engine", c, 5), InputError);
  EXPECT_THROW(LocalWorkers("", c, 5), InputError);
}

}  // namespace
}  // namespace accumlab
