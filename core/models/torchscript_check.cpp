// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/torchscript_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <new>
#include <system_error>
#include <tuple>

#include "accumlab/child_process.h"
#include "accumlab/executable_path.h"
#include "accumlab/input_error.h"
#include "models/torchscript_model.h"

#ifndef ACCUMLAB_ENGINE_FROM_BIN
#define ACCUMLAB_ENGINE_FROM_BIN "../libexec/accumlab/accumlab-engine"
#endif

namespace accumlab {
namespace {

// Last lines of the child's stderr kept: its reason is the last; LibTorch may warn before it.
constexpr size_t kStderrLines = 4;
// What a failed allocation says inside LibTorch (c10's CPU allocator), in the loader's error.
constexpr const char* kAllocatorFailure = "can't allocate memory";

// A file as it was checked: the same path with these is not checked again.
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
std::map<std::string, FileStamp>& checkedFiles() {
  static std::map<std::string, FileStamp> files;
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

// Fails the child at once when the loader's operator new finds no memory under the limit,
// before anything can turn bad_alloc into another error or an abort.
void outOfMemory() {
  static const char kText[] = "out of memory\n";
  (void)!::write(STDERR_FILENO, kText, sizeof kText - 1);
  ::_exit(kCheckModelOutOfMemory);
}

std::string gib(uint64_t bytes) { return std::to_string(bytes >> 30) + " GiB"; }

}  // namespace

int checkModelHere(const std::string& path) {
  std::set_new_handler(outOfMemory);
  try {
    // Everything the parent's load does: load, read the module's kind, make one replica.
    makeTorchScriptFactoryHere("torchscript:" + path)->create();
    return 0;
  } catch (const std::bad_alloc&) {
    return kCheckModelOutOfMemory;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    if (what.find(kAllocatorFailure) != std::string::npos) return kCheckModelOutOfMemory;
    if (dynamic_cast<const InputError*>(&e)) {
      std::fprintf(stderr, "%s\n", what.c_str());
    } else {
      std::fprintf(stderr, "%s is not a usable TorchScript model (%s)\n", path.c_str(),
                   conciseError(e).c_str());
    }
    return kCheckModelNotLoadable;
  }
}

void setModelCheckProgram(const std::string& program) {
  const std::lock_guard<std::mutex> lock(checkMutex());
  programOverride() = program;
  checkedFiles().clear();
}

void checkModelInChild(const std::string& path) {
  const std::lock_guard<std::mutex> lock(checkMutex());
  FileStamp stamp;
  const bool stamped = stampOf(path, &stamp);
  if (stamped) {
    const auto it = checkedFiles().find(path);
    if (it != checkedFiles().end() && it->second == stamp) return;
  }
  std::string looked_in;
  const std::string program = checkProgram(&looked_in);
  if (program.empty()) {
    throw InputError("cannot load " + path + ": the model checker accumlab-engine is missing " +
                     "(looked for " + looked_in + "); reinstall AccumLab or rebuild it");
  }
  ChildSpec spec;
  spec.argv = {program, kCheckModelCommand, path};
  // LibTorch's own libraries take part of the address space before the loader runs: several
  // GB with CUDA (a limit of 2 GiB alone left the CUDA build's checker unable to start).
  spec.address_space_bytes = kCheckModelAddressSpace + mappedLibraryBytes();
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
    if (stamped) checkedFiles()[path] = stamp;
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
    case ChildResult::End::kExited:
      break;
  }
  if (result.exitedWith(kCheckModelOutOfMemory)) {
    throw InputError(prefix + "the loader ran out of its " + gib(kCheckModelAddressSpace) +
                     " of memory" + fix);
  }
  // Not the checker's own answer: it could not run (a missing library, an internal error).
  throw InputError("cannot load " + path + ": the model checker " + program + " " +
                   result.describe() + (last.empty() ? "" : " (" + last + ")") +
                   "; reinstall AccumLab or rebuild it");
}

}  // namespace accumlab
