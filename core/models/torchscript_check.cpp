// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/torchscript_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <system_error>
#include <tuple>
#include <utility>

#include "accumlab/child_process.h"
#include "accumlab/executable_path.h"
#include "accumlab/input_error.h"

#ifndef ACCUMLAB_ENGINE_FROM_BIN
#define ACCUMLAB_ENGINE_FROM_BIN "../libexec/accumlab/accumlab-engine"
#endif

namespace accumlab {
namespace {

// Last lines of the child's stderr kept: its reason is the last; LibTorch may warn before it.
constexpr size_t kStderrLines = 4;

// A file as it was checked: the same path and sample with these is not checked again.
using FileStamp = std::tuple<dev_t, ino_t, off_t, time_t, long>;

// Guards the settings below and serialises checks: two threads that load the same model at
// once (the app's memory probe and a run) start one child, and the second finds it checked.
std::mutex& checkMutex() {
  static std::mutex m;
  return m;
}
std::string& programOverride() {
  static std::string program;
  return program;
}
// Keyed by the path and the sample's argument.
std::map<std::pair<std::string, std::string>, FileStamp>& checkedFiles() {
  static std::map<std::pair<std::string, std::string>, FileStamp> files;
  return files;
}

bool stampOf(const std::string& path, FileStamp* stamp) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *stamp = {st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
  return true;
}

// The engine sits beside accumlab-cli and itself in a build tree, in libexec/accumlab/ when
// installed; the desktop app of a build tree is in app/gui/, next to app/cli/.
std::string checkProgram(std::string* looked_in) {
  if (!programOverride().empty()) return programOverride();
  const std::string dir = executableDir();
  const std::string candidates[] = {dir + "accumlab-engine", dir + ACCUMLAB_ENGINE_FROM_BIN,
                                    dir + "../cli/accumlab-engine"};
  for (const std::string& c : candidates) {
    if (!dir.empty() && ::access(c.c_str(), X_OK) == 0) return c;
  }
  *looked_in = candidates[0] + ", " + candidates[1] + " and " + candidates[2];
  return {};
}

std::string gib(uint64_t bytes) { return std::to_string(bytes >> 30) + " GiB"; }

}  // namespace

std::string sampleArgument(const ModelSample& sample) {
  std::string text = sample.tokens ? "tokens:" : "float:";
  for (size_t i = 0; i < sample.shape.size(); ++i) {
    text += (i ? "x" : "") + std::to_string(sample.shape[i]);
  }
  return text;
}

void setModelCheckProgram(const std::string& program) {
  const std::lock_guard<std::mutex> lock(checkMutex());
  programOverride() = program;
  checkedFiles().clear();
}

void checkModelInChild(const std::string& path, const ModelSample& sample) {
  const std::lock_guard<std::mutex> lock(checkMutex());
  const std::pair<std::string, std::string> key{path, sampleArgument(sample)};
  FileStamp stamp;
  const bool stamped = stampOf(path, &stamp);
  if (stamped) {
    const auto it = checkedFiles().find(key);
    if (it != checkedFiles().end() && it->second == stamp) return;
  }
  std::string looked_in;
  const std::string program = checkProgram(&looked_in);
  if (program.empty()) {
    throw InputError("cannot load " + path + ": the model checker accumlab-engine is missing " +
                     "(looked for " + looked_in + "); reinstall AccumLab or rebuild it");
  }
  ChildSpec spec;
  spec.argv = {program, kCheckModelCommand, path, key.second};
  // Its heap is watched rather than its address space limited: LibTorch's libraries map
  // several GB with CUDA, and AddressSanitizer reserves terabytes of shadow memory.
  spec.memory_bytes = kCheckModelMemory;
  spec.timeout_s = kCheckModelTimeoutS;
  spec.discard_stdout = true;
  spec.stderr_lines = kStderrLines;
  ChildResult result;
  try {
    result = runChild(spec);
  } catch (const std::system_error& e) {
    throw InputError("cannot load " + path + ": the model checker " + program +
                     " does not start (" + e.code().message() + "); reinstall AccumLab or " +
                     "rebuild it");
  }
  if (result.exitedWith(0)) {
    if (stamped) checkedFiles()[key] = stamp;
    return;
  }
  const std::string last = result.stderr_tail.empty() ? "" : result.stderr_tail.back();
  if (result.exitedWith(kCheckModelNotLoadable) && !last.empty()) throw InputError(last);
  const std::string prefix = path + " is not a loadable TorchScript model: ";
  const std::string fix = "; save it again from Python with torch.jit.script(model).save(path)";
  switch (result.end) {
    case ChildResult::End::kSignaled:
      throw InputError(prefix + "the loader crashed (signal " + std::to_string(result.signal) +
                       ")" + fix);
    case ChildResult::End::kTimedOut:
      throw InputError(prefix + "the loader took longer than " +
                       std::to_string(static_cast<int>(kCheckModelTimeoutS)) + " s" + fix);
    case ChildResult::End::kOutOfMemory:
      break;  // as its own refusal below
    case ChildResult::End::kExited:
      break;
  }
  if (result.end == ChildResult::End::kOutOfMemory || result.exitedWith(kCheckModelOutOfMemory)) {
    throw InputError(prefix + "the loader ran out of its " + gib(kCheckModelMemory) + " of memory" +
                     fix);
  }
  // Not the checker's own answer: it could not run (a missing library, an internal error).
  throw InputError("cannot load " + path + ": the model checker " + program + " " +
                   result.describe() + (last.empty() ? "" : " (" + last + ")") +
                   "; reinstall AccumLab or rebuild it");
}

}  // namespace accumlab
