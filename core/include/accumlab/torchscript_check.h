// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace accumlab {

/// A user's TorchScript file is loaded first in a child process with these limits (LibTorch's
/// loader can crash or exhaust memory on a damaged file); only a file that loads there is
/// loaded in the process itself. `accumlab-engine check-model FILE` is that child.
inline constexpr const char* kCheckModelCommand = "check-model";
/// The child's address space (RLIMIT_AS) beyond what its shared libraries map
/// (mappedLibraryBytes(), added when the child starts).
inline constexpr uint64_t kCheckModelAddressSpace = uint64_t{2} << 30;
/// The child's wall time, after which it is killed.
inline constexpr double kCheckModelTimeoutS = 30;
/// The child's exit codes besides 0 (loaded).
inline constexpr int kCheckModelNotLoadable = 2;  ///< the reason is its last stderr line
inline constexpr int kCheckModelOutOfMemory = 3;

/// The child's side: loads `path` with LibTorch's loader in this process (no child of its
/// own) and returns the exit code: 0, kCheckModelNotLoadable or kCheckModelOutOfMemory.
int checkModelHere(const std::string& path);

/// Sets the program that runs `check-model FILE` ("" restores the default: accumlab-engine
/// beside this program, in ../libexec/accumlab/, or in ../cli/ of a build tree). For tests,
/// whose binaries have no engine beside them.
void setModelCheckProgram(const std::string& program);

/// Loads `path` in the child; throws InputError with one sentence naming the file when it does
/// not load there (the loader's reason, a crash, out of memory, out of time) or when the
/// child cannot be started. A file already checked unchanged is not checked again.
void checkModelInChild(const std::string& path);

}  // namespace accumlab
