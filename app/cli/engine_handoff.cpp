// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine_handoff.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "accumlab/executable_path.h"
#include "blas_core.h"

#ifndef ACCUMLAB_ENGINE_FROM_BIN
#define ACCUMLAB_ENGINE_FROM_BIN "../libexec/accumlab/accumlab-engine"
#endif

namespace accumlab::cli {

EngineHandoff::EngineHandoff(CLI::App& parent) {
  std::vector<std::pair<const char*, const char*>> commands = {{"run", kRunAbout},
                                                               {"sweep", kSweepAbout},
                                                               {"sweep-point", kSweepPointAbout},
                                                               {"lesson", kLessonAbout}};
#ifdef ACCUMLAB_WITH_UI
  commands.emplace_back("report", kReportAbout);
#endif
  // `completion bash` (completion_command.h): the engine knows every option.
  commands.emplace_back("completion", kCompletionAbout);
  for (const auto& [name, about] : commands) {
    CLI::App* sub = parent.add_subcommand(name, about);
    sub->set_help_flag();  // `run --help` is the engine's to answer
    sub->allow_extras();
    sub->prefix_command();
    commands_.push_back(sub);
  }
}

bool EngineHandoff::chosen() const {
  for (const CLI::App* sub : commands_) {
    if (sub->parsed()) return true;
  }
  return false;
}

int EngineHandoff::exec(int argc, char** argv) {
  // The engine sits next to this program in a build tree, in libexec/accumlab/ when installed.
  const std::string dir = executableDir();
  const std::string candidates[] = {dir + "accumlab-engine", dir + ACCUMLAB_ENGINE_FROM_BIN};
  // The engine loads OpenBLAS as it starts: its kernels are chosen here, before.
  chooseBlasCore();
  for (const std::string& engine : candidates) {
    if (::access(engine.c_str(), X_OK) != 0) continue;
    std::vector<char*> args(argv, argv + argc);
    args.push_back(nullptr);
    ::execv(engine.c_str(), args.data());
    std::fprintf(stderr, "accumlab-cli: cannot start %s: %s\n", engine.c_str(),
                 std::strerror(errno));
    return 1;
  }
  std::fprintf(stderr,
               "accumlab-cli: the training engine accumlab-engine is missing (looked for %s "
               "and %s); reinstall AccumLab or rebuild it\n",
               candidates[0].c_str(), candidates[1].c_str());
  return 1;
}

}  // namespace accumlab::cli
